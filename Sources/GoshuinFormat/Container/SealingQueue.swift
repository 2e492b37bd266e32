/// The work of a ``StreamingSealer``'s pool: records the caller filled go to the observer, when there is one,
/// in order and on worker 0 alone, then to any worker to be sealed and written; sealed records wait to be
/// shown to the sealed bytes' observer, in order, by the caller (``takeSealed()``), and are then its to fill
/// again.
struct SealingQueue: WorkQueue {
    /// A part of a record for the observer to see.
    struct Sighting {
        let index: UInt64
        let buffer: AllocatedBytes
        let range: Range<Int>
        /// Whether the record is full and goes on to be sealed once seen.
        let thenSeal: Bool
    }

    /// A full record, its plaintext `length` bytes long.
    struct Record {
        let index: UInt64
        let buffer: AllocatedBytes
        let length: Int
    }

    enum Task {
        case observe(Sighting)
        case seal(Record)
    }

    let observing: Bool
    /// Whether sealed records are shown to an observer before they are filled again.
    let showing: Bool
    private(set) var failure: GoshuinError?
    private var free: [AllocatedBytes]
    private var sightings: [Sighting] = []
    private var observerBusy = false
    private var pending: [Record] = []
    private var sealed: [UInt64: Record] = [:]
    /// The record whose turn it is to be shown.
    private var nextToShow: UInt64 = 0
    private var ended = false

    init(free: [AllocatedBytes], observing: Bool, showing: Bool) {
        self.free = free
        self.observing = observing
        self.showing = showing
    }

    /// Whether the observer has seen every part handed to it.
    var isObserved: Bool { sightings.isEmpty && !observerBusy }

    /// Whether the caller may go on: a record is free, or the next to show is sealed, or the work failed.
    var hasRecordForCaller: Bool { !free.isEmpty || sealed[nextToShow] != nil || failure != nil }

    /// A free record, or else the next sealed record to show (its buffer the caller's once shown).
    mutating func takeRecord() throws -> (buffer: AllocatedBytes, toShow: Record?) {
        if let failure { throw failure }
        if let buffer = free.popLast() { return (buffer, nil) }
        let record = takeSealed()
        guard let record else { preconditionFailure("a record is free or sealed") }
        return (record.buffer, record)
    }

    /// The next sealed record to show, in turn, once the workers are done with it.
    mutating func takeSealed() -> Record? {
        guard let record = sealed.removeValue(forKey: nextToShow) else { return nil }
        nextToShow += 1
        return record
    }

    mutating func observe(_ sighting: Sighting) { sightings.append(sighting) }

    mutating func seal(_ record: Record) { pending.append(record) }

    mutating func next(worker: Int) -> Task? {
        guard failure == nil else { return nil }
        if worker == 0, !observerBusy, !sightings.isEmpty {
            observerBusy = true
            return .observe(sightings.removeFirst())
        }
        guard !pending.isEmpty else { return nil }
        return .seal(pending.removeFirst())
    }

    var isFinished: Bool { failure != nil || (ended && isObserved && pending.isEmpty) }

    mutating func complete(_ task: Task, _ outcome: Result<Void, any Error>) {
        switch task {
        case .observe(let sighting):
            observerBusy = false
            if case .failure(let error) = outcome {
                return fail(error.goshuinError("cannot look at the payload"))
            }
            if sighting.thenSeal {
                pending.append(
                    Record(index: sighting.index, buffer: sighting.buffer, length: sighting.range.upperBound))
            }
        case .seal(let record):
            if case .failure(let error) = outcome { return fail(error.goshuinError("cannot seal a chunk")) }
            if showing { sealed[record.index] = record } else { free.append(record.buffer) }
        }
    }

    mutating func stop(_ failure: any Error) { fail(failure.goshuinError("cannot seal")) }

    mutating func end() { ended = true }

    private mutating func fail(_ error: GoshuinError) { failure = failure ?? error }
}

extension StreamingSealer {
    /// What a worker of the pool runs: the observer (worker 0 only) and a cipher of its own.
    static func runner(
        observer: PayloadObserver?, keyed: KeyedHeader, output: FileDescriptor
    ) -> WorkerPool<SealingQueue>.RunnerFactory {
        { _ in
            let cipher = try keyed.cipher()
            let geometry = keyed.geometry
            return { task in
                switch task {
                case .observe(let sighting):
                    guard let observer else { return }
                    let start = geometry.plaintextStart
                    let bytes = UnsafeRawBufferPointer(
                        rebasing: sighting.buffer.bytes[
                            start + sighting.range.lowerBound..<start + sighting.range.upperBound])
                    try observer.observe(
                        bytes, at: geometry.plaintextOffset(ofChunk: sighting.index) + UInt64(sighting.range.lowerBound)
                    )
                case .seal(let record):
                    // Never version 2's final record: ``StreamingSealer/finish()`` seals that one itself.
                    let bytes = UnsafeMutableRawBufferPointer(
                        rebasing: record.buffer.bytes[0..<geometry.recordLength(plaintextLength: record.length)])
                    try cipher.sealRecord(bytes, index: record.index, final: false)
                    try describingFailure("cannot write the output") {
                        try output.writeAll(
                            UnsafeRawBufferPointer(bytes), atOffset: Int64(geometry.recordOffset(ofChunk: record.index))
                        )
                    }
                }
            }
        }
    }
}
