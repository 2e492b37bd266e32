/* libdeflate (Debian's libdeflate-dev): its CRC-32, with carry-less multiplication where the processor has
   it (Spec/decisions/0016). Only Sources/GoshuinFormat/Encoding/CRC32_libdeflate.swift imports this
   module. */
#include <libdeflate.h>
