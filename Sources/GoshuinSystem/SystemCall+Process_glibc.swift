internal import CSystem
internal import Glibc

/// The process: its environment, user, clock, processors, memory and core dumps.
extension SystemCall {
    /// The raw bytes of the environment variable `name`; `nil` when it is not set.
    static func environment(_ name: String) -> UnsafeRawBufferPointer? {
        guard let value = getenv(name) else { return nil }
        return UnsafeRawBufferPointer(start: value, count: strlen(value))
    }

    static var effectiveUserID: UInt32 { UInt32(geteuid()) }

    /// Where the symbolic link at `path` points; `nil` when it is not one or cannot be read.
    static func linkTarget(_ path: String) -> String? {
        var buffer = [UInt8](repeating: 0, count: 4_096)
        let count = buffer.withUnsafeMutableBufferPointer { bytes in
            bytes.baseAddress.map { base in
                base.withMemoryRebound(to: CChar.self, capacity: bytes.count) { readlink(path, $0, bytes.count) }
            } ?? -1
        }
        guard count > 0, count < buffer.count else { return nil }
        return String(validating: buffer[0..<count], as: UTF8.self)
    }

    /// Seconds since 1970.
    static var now: Int { Int(time(nil)) }

    /// `seconds` since 1970 in UTC: year, month 1–12, day, hour, minute, second.
    static func utcDate(_ seconds: Int) -> (year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        return (
            Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday), Int(parts.tm_hour),
            Int(parts.tm_min), Int(parts.tm_sec)
        )
    }

    static var onlineProcessorCount: Int { Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) }

    /// Keeps this process from writing a core dump and from being read by another process of its user
    /// (`PR_SET_DUMPABLE` 0, and `RLIMIT_CORE` 0 for the file systems' dumps); false when either was refused.
    @discardableResult
    static func forbidCoreDumps() -> Bool {
        var limit = rlimit(rlim_cur: 0, rlim_max: 0)
        let limited = setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &limit) == 0
        return goshuin_set_dumpable(0) == 0 && limited
    }

    /// Whether this process may dump core (`PR_GET_DUMPABLE`).
    static var isDumpable: Bool { goshuin_get_dumpable() == 1 }

    /// The soft limit on the size of a core dump this process may write.
    static var coreDumpSizeLimit: UInt64 {
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &limit)
        return UInt64(limit.rlim_cur)
    }

    /// The size of a page of memory.
    static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    /// `count` bytes (at least one) aligned to 16, or `nil` when the system refuses.
    static func allocate(_ count: Int) -> UnsafeMutableRawPointer? {
        var pointer: UnsafeMutableRawPointer?
        guard posix_memalign(&pointer, 16, max(count, 1)) == 0 else { return nil }
        return pointer
    }

    /// The offset of the first occurrence of `needle` in `haystack` (`memmem(3)`), or `nil`.
    static func firstOccurrence(of needle: UnsafeRawBufferPointer, in haystack: UnsafeRawBufferPointer) -> Int? {
        guard let base = haystack.baseAddress, let wanted = needle.baseAddress, !needle.isEmpty,
            let found = memmem(base, UInt(haystack.count), wanted, UInt(needle.count))
        else { return nil }
        return UnsafeRawPointer(found) - base
    }

    /// Whether the `count` bytes at `first` and `second` are equal (`memcmp(3)`).
    static func equalBytes(_ first: UnsafeRawPointer, _ second: UnsafeRawPointer, count: Int) -> Bool {
        memcmp(first, second, count) == 0
    }

    static func free(_ pointer: UnsafeMutableRawPointer?) { Glibc.free(pointer) }

    /// `count` bytes (a multiple of the page size) of private anonymous memory, zeroed; `nil` when refused.
    static func mapAnonymous(_ count: Int) -> UnsafeMutableRawPointer? {
        let pointer = mmap(nil, count, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        return pointer == MAP_FAILED ? nil : pointer
    }

    static func unmap(_ pointer: UnsafeMutableRawPointer, _ count: Int) { _ = munmap(pointer, count) }

    /// Overwrites `buffer` with zeros in a way the compiler cannot elide (`explicit_bzero`).
    static func wipe(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        explicit_bzero(base, buffer.count)
    }

    /// Leaves the pages out of core dumps (`MADV_DONTDUMP`); false when the system refuses.
    @discardableResult
    static func excludeFromCoreDumps(_ pointer: UnsafeMutableRawPointer, _ count: Int) -> Bool {
        madvise(pointer, count, MADV_DONTDUMP) == 0
    }
}
