import GoshuinFormat

/// The MS-DOS date and time of ZIP headers (APPNOTE §4.4.6): two-second steps from 1980 to 2107, with no
/// time zone. A backup's writer puts UTC there, as in its extended timestamp field.
enum DOSTime {
    /// The date and time of 1980-01-01 00:00, the earliest, which the toolkit's first writer gave every entry:
    /// it says nothing of when the file was made.
    static let earliest: (time: UInt16, date: UInt16) = (0, 1 << 5 | 1)

    /// `seconds` since 1970 (UTC) as DOS fields, the odd second dropped, clamped to 1980 … 2107.
    static func encode(_ seconds: Int) -> (time: UInt16, date: UInt16) {
        let parts = FileSystem.utcDate(seconds)
        guard parts.year >= 1980 else { return earliest }
        guard parts.year <= 2107 else { return (23 << 11 | 59 << 5 | 29, 127 << 9 | 12 << 5 | 31) }
        let time = UInt16(parts.hour << 11 | parts.minute << 5 | parts.second / 2)
        let date = UInt16((parts.year - 1980) << 9 | parts.month << 5 | parts.day)
        return (time, date)
    }

    /// The seconds since 1970 (UTC) that DOS fields say; `nil` for fields that name no real time.
    static func decode(time: UInt16, date: UInt16) -> Int? {
        let year = 1980 + Int(date >> 9)
        let month = Int(date >> 5 & 0xF)
        let day = Int(date & 0x1F)
        let hour = Int(time >> 11)
        let minute = Int(time >> 5 & 0x3F)
        let second = Int(time & 0x1F) * 2
        guard (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 60 else { return nil }
        return daysSince1970(year: year, month: month, day: day) * 86_400 + hour * 3_600 + minute * 60 + second
    }

    /// Days from 1970-01-01 to the date, in the proleptic Gregorian calendar (Howard Hinnant's
    /// `days_from_civil`).
    static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let shifted = month <= 2 ? year - 1 : year
        let era = (shifted >= 0 ? shifted : shifted - 399) / 400
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
