/* zlib (Debian's zlib1g-dev): raw inflate for reading a backup's deflated entries, raw deflate for
   records.csv. Only Sources/GoshuinBackup imports this module. */
#include <zlib.h>
