/// A buffer its owner lends to other threads without a copy: each borrower holds it from ``borrow()``
/// until ``giveBack()``, and the owner writes into it again only once every borrower has given it back
/// (``waitUntilReturned()``). A decrypted chunk goes on this way to the thread that writes it and to the
/// one that hashes it.
package final class BufferLoan: Sendable {
    /// The memory lent; it lives as long as the loan does, so a borrower never outlives it.
    package let buffer: AllocatedBytes
    /// How many borrowers hold it.
    private let borrowers = LockedState(0)

    /// A loan of `buffer`, which nobody holds yet.
    package init(_ buffer: AllocatedBytes) { self.buffer = buffer }

    /// Counts one more borrower: the bytes stay as they are until it gives them back.
    package func borrow() { borrowers.withLock { $0 += 1 } }

    /// A borrower is done with the bytes.
    package func giveBack() {
        borrowers.withLock { count in
            precondition(count > 0, "a loan is given back once per borrow")
            count -= 1
        }
    }

    /// Waits until every borrower has given the buffer back; then it is the owner's to write into again.
    package func waitUntilReturned() { borrowers.wait(until: { $0 == 0 }, then: { _ in }) }
}

/// Bytes inside a lent buffer: what a reader that lends its buffers hands on, valid during the call that
/// gets them and, once borrowed (``BufferLoan/borrow()``), until given back.
package struct LentBytes: @unchecked Sendable {
    // @unchecked: the pointer is into `loan`'s buffer, which the loan keeps alive.
    /// The loan the bytes belong to.
    package let loan: BufferLoan
    /// The bytes.
    package let bytes: UnsafeRawBufferPointer

    /// `bytes`, which lie inside `loan`'s buffer.
    package init(_ bytes: UnsafeRawBufferPointer, in loan: BufferLoan) {
        self.loan = loan
        self.bytes = bytes
    }
}
