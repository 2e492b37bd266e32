import Foundation
import Testing

/// The two test tiers (README, "Developing"): `swift test` runs the default loop, a developer's after every
/// edit; `GOSHUIN_SLOW_TESTS=1 swift test` adds the slow tier, which `.ci/run` always runs.
public enum TestTier {
    /// The environment variable that turns the slow tier on.
    public static let slowTierVariable = "GOSHUIN_SLOW_TESTS"

    /// Whether this run includes the slow tier.
    public static var includesSlowTier: Bool {
        ProcessInfo.processInfo.environment[slowTierVariable] == "1"
    }
}

extension Trait where Self == ConditionTrait {
    /// Marks a test or suite of the slow tier: large backups, every documented example, fuzz regressions, damage
    /// campaigns, and tests that start processes under a pseudo-terminal or a memory limit.
    public static var slowTier: Self {
        .enabled(
            if: TestTier.includesSlowTier,
            "slow tier: run with \(TestTier.slowTierVariable)=1 swift test"
        )
    }
}
