import Foundation
import Testing

@testable import GoshuinBackup

/// What `seal` warns about, checked by its meaning (its wording: `Tests/ToolTranscripts/seal-warnings.txt`): the
/// photos records.csv names that the folder lacks are the ones a salvage of the backup would look for
/// (`PhotoMentions`, `Spec/backup-v1.md` §4.2), every one in `--json`; the backup is sealed all the same.
@Suite struct SealWarningTests {
    let directory = Scratch()
    let environment = ["GOSHUIN_PASSPHRASE": "warnings and their photos"]

    @Test func theMissingPhotosAreTheOnesASalvageWouldLookFor() throws {
        try FileManager.default.createDirectory(atPath: directory.path + "/in", withIntermediateDirectories: true)
        var records = "\u{FEFF}date,photo,note\n2026-01-01,IMG_0001.jpg,\"IMG_0001.JPG again\"\n"
        records += "2026-01-02,img_0002.jpeg;IMG_0003.heic|IMG_0004.webp\tIMG_0005.HEIF\r\n"
        records += "2026-01-03,\(String(repeating: "a", count: 101)).jpg,IMG_0006.png.jpg IMG-0007.PNG _x.jpg\n"
        records += (8..<60).map { "2026-02-01,IMG_00\($0).jpg\n" }.joined()
        directory.write("in/records.csv", Array(records.utf8))
        let present = ["IMG_0001.jpg", "IMG_0002.JPEG", "IMG_0040.jpg"]
        for name in present { directory.write("in/" + name, Array(name.utf8)) }
        let sealed = try ToolRunner.run(
            ["seal", "in", "-o", "in.goshuin", "--iterations", "1000", "--json"], in: directory.path,
            environment: environment)
        #expect(sealed.status == 0, "sealing goes on: \(sealed.stderr)")
        #expect(directory.exists("in.goshuin"))
        let summary = try #require(
            try JSONSerialization.jsonObject(with: Data(sealed.stdoutBytes)) as? [String: Any], "\(sealed.stdout)")
        #expect(summary["photoCount"] as? Int == present.count)
        let warnings = try #require(summary["warnings"] as? [[String: Any]])
        #expect(warnings.map { $0["code"] as? String } == ["photos_not_in_folder"])
        let folded = Set(present.map(EntryName.foldedCase))
        let expected = PhotoMentions.names(in: Array(records.utf8)).filter {
            !folded.contains(EntryName.foldedCase($0))
        }
        #expect(expected.count == 55, "\(expected)")
        #expect(warnings.first?["photos"] as? [String] == expected)
    }

    @Test func aFolderWhosePhotosAreAllThereAndAGoshuinNameHaveNoWarning() throws {
        try FileManager.default.createDirectory(atPath: directory.path + "/in", withIntermediateDirectories: true)
        directory.write("in/records.csv", Array("photo\nIMG_0001.jpg\n".utf8))
        directory.write("in/IMG_0001.jpg", [1, 2, 3])
        for output in ["in.goshuin", "IN.GOSHUIN"] {
            let sealed = try ToolRunner.run(
                ["seal", "in", "-o", output, "--iterations", "1000", "--json"], in: directory.path,
                environment: environment)
            let summary = try #require(
                try JSONSerialization.jsonObject(with: Data(sealed.stdoutBytes)) as? [String: Any])
            #expect(sealed.status == 0 && (summary["warnings"] as? [Any])?.isEmpty == true, "\(sealed.stdout)")
        }
        let zip = try ToolRunner.run(
            ["seal", "in", "-o", "in.zip", "--iterations", "1000", "--json"], in: directory.path,
            environment: environment)
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(zip.stdoutBytes)) as? [String: Any])
        let warnings = try #require(summary["warnings"] as? [[String: Any]])
        #expect(zip.status == 0 && warnings.map { $0["code"] as? String } == ["output_not_named_goshuin"])
        #expect(directory.bytes("in.zip").starts(with: Array("GSHN".utf8)), "a .goshuin file under the name given")
    }
}
