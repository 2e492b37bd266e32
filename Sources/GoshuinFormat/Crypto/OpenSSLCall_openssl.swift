internal import COpenSSL

/// The one place an OpenSSL return code is judged: OpenSSL's EVP and RAND calls return 1 on success. A
/// failure keeps OpenSSL's own text for its first queued error, then clears the queue so that it does not
/// leak into a later call's report.
@inline(__always)
func requireOpenSSLSuccess(_ returnCode: Int32, _ operation: StaticString) throws {
    guard returnCode == 1 else { throw openSSLFailure(operation) }
}

/// The error for a failed OpenSSL call, with OpenSSL's text.
func openSSLFailure(_ operation: StaticString) -> GoshuinError {
    let code = ERR_get_error()
    ERR_clear_error()
    guard code != 0 else { return GoshuinError(.io, "OpenSSL failed in \(operation)") }
    // A memory limit met inside OpenSSL is the same refusal as one met by a buffer of ours.
    if ERR_GET_REASON(code) == ERR_R_MALLOC_FAILURE {
        return GoshuinError(.outOfMemory, "OpenSSL could not allocate memory in \(operation)")
    }
    var text = [CChar](repeating: 0, count: 256)
    ERR_error_string_n(code, &text, text.count)
    let reason = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return GoshuinError(.io, "OpenSSL failed in \(operation): \(reason)")
}
