/* The few C library declarations Swift's Glibc module does not export, and forwarders for the variadic
   calls Swift cannot make itself. Only Sources/GoshuinSystem/SystemCall*_glibc.swift import this module. */
#include <sys/prctl.h>
#include <sys/xattr.h>

/* prctl(2) is variadic; the two options the toolkit uses take one integer or none. */
static inline int goshuin_set_dumpable(int dumpable) { return prctl(PR_SET_DUMPABLE, dumpable, 0, 0, 0); }
static inline int goshuin_get_dumpable(void) { return prctl(PR_GET_DUMPABLE, 0, 0, 0, 0); }

/* sync_file_range(2) is declared only under _GNU_SOURCE, which Swift's Glibc module is built without. Its
   flag SYNC_FILE_RANGE_WRITE (2) starts writing the range back without waiting for it. */
extern int sync_file_range(int fd, long offset, long count, unsigned int flags);
static inline int goshuin_start_writeback(int fd, long offset, long count) {
    return sync_file_range(fd, offset, count, 2);
}

/* memmem(3) is declared only under _GNU_SOURCE too. */
extern void *memmem(const void *haystack, unsigned long haystack_length, const void *needle,
                    unsigned long needle_length);
