// The core's public face: what the page's interface (as `core`) and the tests use, and the page's script
// gives as GoshuinCore.

import { formatSize, giveBack, toHex, utf8Bytes } from "./00-bytes.mjs";
import { advice, asGoshuinError, errorAdvice, GoshuinError } from "./01-errors.mjs";
import { crc32Update, kernels, Md5, md5, Sha256, sha256, useKernels } from "./02-kernels.mjs";
import {
  GF16_EXP, GF16_LOG, gf16Inverse, gf16Multiply, gf16MultiplyAdd, PAR2_INPUT_LOGS, par2Coefficient,
} from "./05-gf16.mjs";
import { blobSource, bytesSource, payloadSource } from "./05-sources.mjs";
import { parseHeader } from "./06-header.mjs";
import { deriveKeysV2, hkdfSha256, hmacSha256, pbkdf2 } from "./07-keys.mjs";
import { PACE_MS, pacer } from "./08-pacing.mjs";
import { ContainerReader, openContainer } from "./10-container.mjs";
import { salvageContainer, SalvageContainer } from "./12-salvage-container.mjs";
import { checkLocalHeader, isSafeEntryName, MANIFEST_NAME, RECORDS_NAME, scanCentralDirectory } from "./20-zip.mjs";
import { inflateRefusesTrailingBytes, limits, readEntryData } from "./22-entry-data.mjs";
import { createWorkerPool } from "./27-worker-pool.mjs";
import { serveWorker } from "./28-worker-tasks.mjs";
import { parseStrictJson } from "./30-json.mjs";
import { checkBinding, isValidPhotoName, parseManifest } from "./40-manifest.mjs";
import { openBackup, readBackup } from "./50-backup.mjs";
import { verifyEntries } from "./51-verify-entries.mjs";
import { describeDamage, salvageBackup, salvageEntries } from "./55-salvage-backup.mjs";
import { CsvReader, parseCsv } from "./60-csv.mjs";
import { imageInfo, photoTypeFromName } from "./65-images.mjs";
import { buildZip, dosDateTime, splitForZips, zipPlan } from "./70-zipwriter.mjs";
import { backupLayout, manifestBytes, recordsPlan } from "./72-backup-layout.mjs";
import { checkNewPassphrase, newBackupSizeAtMost, passphraseKey, SealerV1, SHORT_PASSPHRASE, writeNewBackup } from "./73-backup-writer.mjs";
import { readRecoverySet } from "./82-par2-verify.mjs";
import { consecutiveRun, eliminate, invertConsecutive } from "./83-par2-solve.mjs";
import { rebuildWithRecovery } from "./84-par2-rebuild.mjs";
import { repairBackup, verifyWithRecovery } from "./85-par2-repair.mjs";

export {
  GoshuinError, advice, errorAdvice, asGoshuinError, giveBack, blobSource, bytesSource, buildZip, splitForZips, zipPlan,
  checkBinding, checkLocalHeader, ContainerReader, crc32Update, CsvReader, dosDateTime, formatSize, imageInfo,
  inflateRefusesTrailingBytes, isSafeEntryName, isValidPhotoName, limits, openBackup, salvageBackup,
  salvageContainer, salvageEntries, describeDamage, SalvageContainer, readBackup, readRecoverySet,
  verifyWithRecovery, rebuildWithRecovery, repairBackup, Md5, md5, payloadSource, openContainer, parseCsv,
  parseHeader, parseManifest, parseStrictJson, pbkdf2, hkdfSha256, hmacSha256, deriveKeysV2, photoTypeFromName,
  readEntryData, scanCentralDirectory, Sha256, sha256, toHex, utf8Bytes, verifyEntries, serveWorker,
  createWorkerPool, useKernels, kernels, MANIFEST_NAME, RECORDS_NAME,
};

/** A new backup of what a backup shows (issue 37): 72-backup-layout.mjs, 73-backup-writer.mjs. */
export const newBackup = {
  write: writeNewBackup,
  sizeAtMost: newBackupSizeAtMost,
  checkPassphrase: checkNewPassphrase,
  passphraseKey: passphraseKey,
  SealerV1: SealerV1,
  layout: backupLayout,
  manifestBytes: manifestBytes,
  recordsPlan: recordsPlan,
  SHORT_PASSPHRASE: SHORT_PASSPHRASE,
};

export const recoveryInternals = {
  invertConsecutive: invertConsecutive,
  eliminate: eliminate,
  consecutiveRun: consecutiveRun,
  pacer: pacer,
  PACE_MS: PACE_MS,
};

export const gf16 = {
  multiply: gf16Multiply,
  inverse: gf16Inverse,
  multiplyAdd: gf16MultiplyAdd,
  exp: GF16_EXP,
  log: GF16_LOG,
  inputLogs: PAR2_INPUT_LOGS,
  coefficient: par2Coefficient,
};
