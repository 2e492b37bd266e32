#ifndef GOSHUIN_CMINIZIP_SHIM_H
#define GOSHUIN_CMINIZIP_SHIM_H

/* zlib (raw inflate, CRC-32) and its contrib minizip 1.1 (writing only: Spec/decisions/0009) from
   Debian's zlib1g-dev and libminizip-dev.
   Only Sources/GoshuinFormat/Backup imports this module. */
#include <zlib.h>
#include <minizip/ioapi.h>
#include <minizip/zip.h>

#endif
