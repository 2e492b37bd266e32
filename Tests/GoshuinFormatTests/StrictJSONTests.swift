import GoshuinFormat
import GoshuinTestSupport
import Testing

@Suite struct StrictJSONTests {
    static func parse(_ text: String) -> JSONValue? { try? StrictJSONParser.parse(Array(text.utf8)) }

    @Test func acceptsOrdinaryJSON() {
        let value = Self.parse(#" {"a": [1, -2, 3.5e2, true, false, null], "b": "x\u00e9\ud83d\ude00\n"} "#)
        #expect(
            value
                == .object([
                    ("a", .array([.number("1"), .number("-2"), .number("3.5e2"), .bool(true), .bool(false), .null])),
                    ("b", .string("xé😀\n")),
                ]))
    }

    @Test(arguments: [
        #"{"a": 1, "a": 2}"#, #"{"a": 1,}"#, "[1,]", #"{"a": 01}"#, "\"a\u{01}\"", #""\ud800""#,
        "{} x", "", "nul", #"{"a" 1}"#, "1.", "-", #""\x""#,
    ])
    func rejectsMalformedJSON(text: String) {
        #expect(Self.parse(text) == nil)
    }

    @Test func rejectsInvalidUTF8AndDeepNesting() {
        #expect((try? StrictJSONParser.parse([0x22, 0xC3, 0x28, 0x22])) == nil)
        #expect(Self.parse(String(repeating: "[", count: 40) + String(repeating: "]", count: 40)) == nil)
        #expect(Self.parse(String(repeating: "[", count: 20) + String(repeating: "]", count: 20)) != nil)
    }

    @Test func integersAreExact() {
        #expect(JSONValue.number("9007199254740991").integerValue == 9_007_199_254_740_991)
        #expect(JSONValue.number("9007199254740992").integerValue == nil)
        #expect(JSONValue.number("1.0").integerValue == nil)
        #expect(JSONValue.number("1e3").integerValue == nil)
    }

    @Test func serializationRoundTrips() {
        let value: JSONValue = .object([("k", .string("q\"\\\u{01}é")), ("n", .array([.integer(5), .null]))])
        #expect(Self.parse(value.serialized()) == value)
        #expect(Self.parse(value.prettySerialized()) == value)
    }
}
