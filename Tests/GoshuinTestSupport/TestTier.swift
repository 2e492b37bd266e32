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

/// Runs built with a sanitizer (`.ci/run tsan`: `swift test --sanitize=thread` with `GOSHUIN_SANITIZER=thread`).
public enum Sanitizer {
    /// The environment variable that names the sanitizer the tests and the tool were built with.
    public static let variable = "GOSHUIN_SANITIZER"

    /// The sanitizer of this run, if any.
    public static var current: String? { ProcessInfo.processInfo.environment[variable] }

    /// How much longer a bound on time is under a sanitizer: ThreadSanitizer runs code 5 to 15 times slower.
    public static var timeScale: Double { current == nil ? 1 : 20 }
}

extension Trait where Self == ConditionTrait {
    /// Marks a test that cannot run under a sanitizer: ThreadSanitizer cannot start within a virtual memory
    /// limit (`ulimit -v`: it maps terabytes of shadow memory), and its runtime takes over the signals a file
    /// size limit raises. These tests are about the system's limits, not about threads.
    public static var notUnderSanitizer: Self {
        .enabled(if: Sanitizer.current == nil, "not under a sanitizer: it needs the system's limits as they are")
    }
}
