/* The few C library declarations Swift's Glibc module does not export, and forwarders for the variadic
   calls Swift cannot make itself. Only Sources/GoshuinSystem/SystemCall*_glibc.swift import this module. */
#include <sys/prctl.h>
#include <sys/xattr.h>

/* prctl(2) is variadic; the two options the toolkit uses take one integer or none. */
static inline int goshuin_set_dumpable(int dumpable) { return prctl(PR_SET_DUMPABLE, dumpable, 0, 0, 0); }
static inline int goshuin_get_dumpable(void) { return prctl(PR_GET_DUMPABLE, 0, 0, 0, 0); }
