import Foundation
import GoshuinTestSupport
import Testing

/// A manifest that is valid JSON of the wrong shape costs no more memory than a valid one of its size.
@Suite struct HostileManifestTests {
    let directory = Scratch()
    let environment = ["GOSHUIN_PASSPHRASE": "hostile manifest"]

    /// Writes a backup ZIP by hand: records.csv stored, and a 16 MiB manifest.json of `{"photos":[0,0,…`
    /// deflated with a full flush every 2 KiB, so that it stays under the reader's 200:1 ratio.
    static let makeHostileZip = """
        import sys, zlib, struct, binascii
        def header(signature, name, method, crc, csize, usize, offset=None):
            n = name.encode()
            if offset is None:
                return struct.pack('<IHHHHHIIIHH', signature, 20, 0, method, 0, 0x21, crc, csize, usize, len(n), 0) + n
            return struct.pack('<IHHHHHHIIIHHHHHII', signature, 0x031e, 20, 0, method, 0, 0x21, crc, csize, usize,
                               len(n), 0, 0, 0, 0, 0o100644 << 16, offset) + n
        size = 16 * 1024 * 1024
        body = (b'{"photos":[' + b'0,' * size)[:size]
        deflate = zlib.compressobj(9, zlib.DEFLATED, -15)
        packed = bytearray()
        for i in range(0, len(body), 2048):
            packed += deflate.compress(body[i:i + 2048]) + deflate.flush(zlib.Z_FULL_FLUSH)
        packed += deflate.flush(zlib.Z_FINISH)
        entries = [("records.csv", 0, b"a\\n", b"a\\n"), ("manifest.json", 8, bytes(packed), body)]
        zip, directory = bytearray(), bytearray()
        for name, method, data, plain in entries:
            crc = binascii.crc32(plain) & 0xffffffff
            directory += header(0x02014b50, name, method, crc, len(data), len(plain), len(zip))
            zip += header(0x04034b50, name, method, crc, len(data), len(plain)) + data
        offset = len(zip)
        zip += directory + struct.pack('<IHHHHIIH', 0x06054b50, 0, 0, 2, 2, len(directory), offset, 0)
        open(sys.argv[1], 'wb').write(zip)
        """

    /// Before: the manifest was parsed into about 8 million JSON values (240 MB resident) before any rule,
    /// and under `ulimit -v 300000` the tool died with "failed to allocate", exit 134. Now it is refused at
    /// its first photo, under a limit a normal backup verifies under too.
    @Test(.notUnderSanitizer) func aManifestOfTheWrongShapeIsRefusedWithoutTheMemory() throws {
        let made = try ToolRunner.runCommand(
            "/usr/bin/python3", ["-c", Self.makeHostileZip, directory.path + "/h.zip"])
        #expect(made.status == 0, "\(made.output)")
        let sealed = try ToolRunner.run(
            ["seal", "h.zip", "-o", "h.goshuin", "--iterations", "1000"], in: directory.path, environment: environment)
        #expect(sealed.status == 0, "\(sealed.stderr)")
        let limited = ["/bin/sh", "-c", "ulimit -v 100000 && exec \"$@\"", "sh"]
        for arguments in [["verify", "h.goshuin", "--backup"], ["open", "h.goshuin", "--extract", "out"]] {
            let result = try ToolRunner.run(arguments, in: directory.path, environment: environment, wrapper: limited)
            #expect(result.status == 65, "\(arguments): \(result.stderr)")
            // Refused at its first photo: the place the message names is what is checked.
            #expect(result.errorCode == "manifest_invalid" && result.stderr.contains("photos[0]"), "\(result.stderr)")
        }
        #expect(!directory.exists("out"))
        // A normal backup verifies under a tighter limit still.
        try FileManager.default.createDirectory(atPath: directory.path + "/folder", withIntermediateDirectories: false)
        directory.write("folder/records.csv", Array("date,note\n2026-11-29,a\n".utf8))
        directory.write("folder/IMG_0001.jpg", [UInt8](repeating: 7, count: 100_000))
        let normal = try ToolRunner.run(
            ["seal", "folder", "-o", "n.goshuin", "--iterations", "1000"], in: directory.path, environment: environment)
        #expect(normal.status == 0, "\(normal.stderr)")
        let verified = try ToolRunner.run(
            ["verify", "n.goshuin", "--backup"], in: directory.path, environment: environment,
            wrapper: ["/bin/sh", "-c", "ulimit -v 60000 && exec \"$@\"", "sh"])
        #expect(verified.status == 0, "\(verified.stderr)")
    }
}
