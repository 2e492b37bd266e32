internal import Glibc

/// Threads, and the mutex and condition variable they wait on.
extension SystemCall {
    /// An opaque running thread, to be joined.
    struct Thread: Sendable { fileprivate let raw: pthread_t }

    /// Starts `body` on a new thread with a stack of `stackSize` bytes; `nil` when the system refuses.
    static func startThread(stackSize: Int, _ body: @escaping @Sendable () -> Void) -> Thread? {
        #if GOSHUIN_FAULT_INJECTION
            let body = FaultInjection.inheritingScope(body)
        #endif
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, stackSize)
        let context = Unmanaged.passRetained(ThreadBody(body))
        var thread = pthread_t()
        let started = pthread_create(
            &thread, &attributes,
            { raw in
                guard let raw else { return nil }
                Unmanaged<ThreadBody>.fromOpaque(raw).takeRetainedValue().body()
                return nil
            }, context.toOpaque())
        guard started == 0 else {
            context.release()
            return nil
        }
        return Thread(raw: thread)
    }

    /// Waits for `thread` to return.
    static func join(_ thread: Thread) { pthread_join(thread.raw, nil) }

    /// A key to a value each thread has its own of (`pthread_key_create`), never deleted.
    struct ThreadKey: Sendable {
        fileprivate let raw: pthread_key_t
    }

    static func makeThreadKey() -> ThreadKey {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return ThreadKey(raw: key)
    }

    /// This thread's value for `key`.
    static func threadValue(_ key: ThreadKey) -> UnsafeMutableRawPointer? { pthread_getspecific(key.raw) }

    /// Sets this thread's value for `key`.
    static func setThreadValue(_ key: ThreadKey, _ value: UnsafeMutableRawPointer?) {
        pthread_setspecific(key.raw, value)
    }

    private final class ThreadBody: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    /// A mutex and a condition variable, allocated once and never moved (pthread objects must not be).
    struct Condition {
        fileprivate let mutex: UnsafeMutablePointer<pthread_mutex_t>
        fileprivate let condition: UnsafeMutablePointer<pthread_cond_t>
    }

    static func makeCondition() -> Condition {
        let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
        return Condition(mutex: mutex, condition: condition)
    }

    static func destroy(_ condition: Condition) {
        pthread_cond_destroy(condition.condition)
        pthread_mutex_destroy(condition.mutex)
        condition.condition.deallocate()
        condition.mutex.deallocate()
    }

    static func lock(_ condition: Condition) { pthread_mutex_lock(condition.mutex) }
    static func unlock(_ condition: Condition) { pthread_mutex_unlock(condition.mutex) }
    /// Waits for a broadcast, the mutex released meanwhile and held again on return.
    static func wait(_ condition: Condition) { pthread_cond_wait(condition.condition, condition.mutex) }
    static func broadcast(_ condition: Condition) { pthread_cond_broadcast(condition.condition) }
}
