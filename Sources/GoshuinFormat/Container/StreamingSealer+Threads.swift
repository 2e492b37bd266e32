/// The threads of a ``StreamingSealer`` and what they share: the caller fills records, the observer's
/// thread sees each in order (``Watch``), the workers seal and write full ones (``Work``), all through one
/// locked state (``SharedState``).
extension StreamingSealer {
    /// A part of a record for the observer to see.
    struct Sighting {
        let index: UInt64
        let buffer: AllocatedBytes
        let range: Range<Int>
        /// Whether the record is full and goes on to be sealed once seen.
        let thenSeal: Bool
    }

    /// What the caller, the observer and the workers share, under one lock: free records, parts to observe,
    /// records to seal, the first failure, whether the stream is closing.
    final class SharedState: @unchecked Sendable {
        // @unchecked: every field is touched under `lock` only, but `observing`, which never changes.
        private let lock = ConditionLock()
        let observing: Bool
        private var free: [AllocatedBytes]
        private var sightings: [Sighting] = []
        private var observerBusy = false
        private var pending: [(index: UInt64, buffer: AllocatedBytes, length: Int)] = []
        private var closing = false
        private var error: GoshuinError?
        /// The record whose turn it is to be shown to a ``SealedBytesObserver``.
        private var nextToShow: UInt64 = 0

        init(free: [AllocatedBytes], observing: Bool) {
            self.free = free
            self.observing = observing
        }

        var failure: GoshuinError? { lock.withLock { error } }

        /// A record to fill, once one is free; the first failure if there is one.
        func takeFree() throws -> AllocatedBytes {
            try lock.wait(until: { !free.isEmpty || error != nil }) {
                if let error { throw error }
                return free.removeLast()
            }
        }

        func observe(_ index: UInt64, _ buffer: AllocatedBytes, from: Int, to end: Int, thenSeal: Bool) {
            lock.withLock {
                sightings.append(Sighting(index: index, buffer: buffer, range: from..<end, thenSeal: thenSeal))
            }
        }

        func seal(_ index: UInt64, _ buffer: AllocatedBytes, length: Int) {
            lock.withLock { pending.append((index, buffer, length)) }
        }

        /// Waits until the observer has seen every part handed to it; the first failure if there is one.
        func waitUntilObserved() throws {
            try lock.wait(until: { (sightings.isEmpty && !observerBusy) || error != nil }) {
                if let error { throw error }
            }
        }

        /// No more records will come: the threads end once the pending ones are done.
        func close() { lock.withLock { closing = true } }

        /// The next part to observe, or `nil` when there will be none.
        func takeSighting() -> Sighting? {
            lock.wait(until: { !sightings.isEmpty || closing || error != nil }) {
                guard error == nil, !sightings.isEmpty else { return nil }
                observerBusy = true
                return sightings.removeFirst()
            }
        }

        /// The observer saw `sighting`: the record goes on to be sealed when it is full.
        func observed(_ sighting: Sighting) {
            lock.withLock {
                observerBusy = false
                if sighting.thenSeal { pending.append((sighting.index, sighting.buffer, sighting.range.upperBound)) }
            }
        }

        /// The next record to seal, or `nil` when there will be none.
        func takePending() -> (index: UInt64, buffer: AllocatedBytes, length: Int)? {
            lock.wait(until: {
                !pending.isEmpty || error != nil || (closing && sightings.isEmpty && !observerBusy)
            }) {
                guard error == nil, !pending.isEmpty else { return nil }
                return pending.removeFirst()
            }
        }

        func recycle(_ buffer: AllocatedBytes) { lock.withLock { free.append(buffer) } }

        /// Waits until every record before `index` was shown, then runs `show` (no other record is shown
        /// meanwhile) and passes the turn on. Records are taken to be sealed in index order, so the one whose
        /// turn it is is always being sealed.
        func deliverInTurn(_ index: UInt64, _ show: () throws -> Void) throws {
            try lock.wait(until: { nextToShow == index || error != nil }) {
                if let error { throw error }
            }
            try show()
            lock.withLock { nextToShow = index + 1 }
        }

        func fail(_ failure: GoshuinError) {
            lock.withLock {
                observerBusy = false
                if error == nil { error = failure }
            }
        }
    }

    /// The observer's thread: shows it every part in order.
    final class Watch: @unchecked Sendable {
        // @unchecked: the observer is this thread's alone while the stream runs; the state is locked.
        let state: SharedState
        let observer: PayloadObserver
        let geometry: ChunkGeometry

        init(state: SharedState, observer: PayloadObserver, geometry: ChunkGeometry) {
            self.state = state
            self.observer = observer
            self.geometry = geometry
        }

        func run() {
            while let sighting = state.takeSighting() {
                do {
                    let start = geometry.plaintextStart
                    let bytes = UnsafeRawBufferPointer(
                        rebasing: sighting.buffer.bytes[
                            start + sighting.range.lowerBound..<start + sighting.range.upperBound])
                    try observer.observe(
                        bytes, at: geometry.plaintextOffset(ofChunk: sighting.index) + UInt64(sighting.range.lowerBound)
                    )
                    state.observed(sighting)
                } catch {
                    state.fail(error.goshuinError("cannot look at the payload"))
                }
            }
        }
    }

    /// One worker: seals full records (never version 2's final one) in place and writes them at their offsets.
    final class Work: @unchecked Sendable {
        // @unchecked: the cipher is this worker's alone; the state is locked; the sealed bytes' observer is
        // called by one worker at a time (``SharedState/deliverInTurn(_:_:)``); the rest is immutable.
        let state: SharedState
        let cipher: ChunkCipher
        let geometry: ChunkGeometry
        let output: FileDescriptor
        let sealedBytes: SealedBytesObserver?

        init(
            state: SharedState, cipher: ChunkCipher, geometry: ChunkGeometry, output: FileDescriptor,
            sealedBytes: SealedBytesObserver?
        ) {
            self.state = state
            self.cipher = cipher
            self.geometry = geometry
            self.output = output
            self.sealedBytes = sealedBytes
        }

        func run() {
            while let (index, buffer, length) = state.takePending() {
                do {
                    let record = UnsafeMutableRawBufferPointer(
                        rebasing: buffer.bytes[0..<geometry.recordLength(plaintextLength: length)])
                    try cipher.sealRecord(record, index: index, final: false)
                    try describingFailure("cannot write the output") {
                        try output.writeAll(
                            UnsafeRawBufferPointer(record), atOffset: Int64(geometry.recordOffset(ofChunk: index)))
                    }
                    if let sealedBytes {
                        try state.deliverInTurn(index) { try sealedBytes.sealed(UnsafeRawBufferPointer(record)) }
                    }
                    state.recycle(buffer)
                } catch {
                    state.fail(error.goshuinError("cannot seal a chunk"))
                }
            }
        }
    }
}
