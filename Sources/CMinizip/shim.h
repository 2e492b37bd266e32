#ifndef GOSHUIN_CMINIZIP_SHIM_H
#define GOSHUIN_CMINIZIP_SHIM_H

/* zlib (crc32) and zlib's contrib minizip 1.1 from Debian's zlib1g-dev and libminizip-dev.
   Only Sources/GoshuinFormat/Backup imports this module. */
#include <zlib.h>
#include <minizip/ioapi.h>
#include <minizip/unzip.h>
#include <minizip/zip.h>

#endif
