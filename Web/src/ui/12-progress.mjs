// The progress of opening, repairing and salvaging a backup, stage by stage, in the status line, with the
// time left of a long stage.

import * as core from "../core/index.mjs";
import { now } from "./00-basics.mjs";
import { setStatus, showNextStatus } from "./10-status.mjs";

var STAGE_TEXT = {
  directory: "Reading the backup's list of contents…",
  "salvage-directory": "Reading the backup's list of contents…",
};

/**
 * "; about 25 s left" for a long stage, from its rate so far (once it has run a few seconds), as the tool
 * says it; "" before that.
 */
var stageClock = { stage: null, started: 0, from: 0 };
function timeLeft(stage, done, total) {
  var time = now();
  if (stageClock.stage !== stage || done < stageClock.from) stageClock = { stage: stage, started: time, from: done };
  var elapsed = (time - stageClock.started) / 1000;
  var progressed = done - stageClock.from;
  if (elapsed < 3 || progressed <= 0 || done >= total) return "";
  var left = Math.ceil(((total - done) * elapsed) / progressed);
  return left < 60 ? "; about " + left + " s left" : "; about " + Math.round(left / 60).toLocaleString("en-US") + " min left";
}

var stageShown = null; // the stage whose words the status line has shown

export function onProgress(stage, done, total, header) {
  if (stage !== stageShown) {
    stageShown = stage;
    showNextStatus();
  }
  if (stage === "key") {
    if (header) {
      onProgress.rounds = header.iterations;
      setStatus("Checking the passphrase (" + header.iterations.toLocaleString("en-US") + " rounds of PBKDF2)…", 0, true);
    } else {
      var rounds = onProgress.rounds ? " (" + onProgress.rounds.toLocaleString("en-US") + " rounds of PBKDF2)" : "";
      setStatus("Checking the passphrase" + rounds + "… " + Math.round(done * 100) + "%" + timeLeft(stage, done, 1), done, done >= 1);
    }
  } else if (stage === "probe") {
    setStatus("A part of the file does not authenticate; finding the first one that fails…", done / total);
  } else if (stage === "rest") {
    setStatus("Checking that the rest of the file is intact…", done / total);
  } else if (stage === "survey") {
    setStatus("A part of the file is damaged; finding which files it holds…", done / total);
  } else if (stage === "salvage") {
    setStatus(
      "Checking every part of the file… " + Math.round((done / Math.max(1, total)) * 100) + "%" + timeLeft(stage, done, total),
      total ? done / total : 1,
      done === 0 || done === total
    );
  } else if (stage === "salvage-entries") {
    setStatus("Checking each file that is intact… " + (done + 1).toLocaleString("en-US") + " of " + total.toLocaleString("en-US"), total ? done / total : 1);
  } else if (stage === "salvage-walk") {
    setStatus("Looking for the files that are intact… " + core.formatSize(done) + " of " + core.formatSize(total), total ? done / total : 1);
  } else if (stage === "recovery-scan") {
    setStatus("Reading the recovery files… " + core.formatSize(done) + " of " + core.formatSize(total), total ? done / total : 1);
  } else if (stage === "recovery-verify") {
    setStatus(
      "Checking every part of the backup against its recovery files… " + core.formatSize(done) + " of " + core.formatSize(total) + timeLeft(stage, done, total),
      total ? done / total : 1,
      done === 0 || done === total
    );
  } else if (stage === "recovery-slices") {
    setStatus("Checking what the recovery files hold to rebuild the damaged parts… " + done.toLocaleString("en-US") + " of " + total.toLocaleString("en-US"), total ? done / total : 1);
  } else if (stage === "recovery-rebuild") {
    setStatus("Rebuilding the damaged parts from the recovery files… " + core.formatSize(done) + " of " + core.formatSize(total) + timeLeft(stage, done, total), total ? done / total : 1);
  } else if (stage === "recovery-check") {
    setStatus("Checking the repaired backup… " + core.formatSize(done) + " of " + core.formatSize(total), total ? done / total : 1, done === total);
  } else if (stage === "verify") {
    setStatus(
      "Checking every file in the backup against its list… " + core.formatSize(done) + " of " + core.formatSize(total) + timeLeft(stage, done, total),
      total ? done / total : 1,
      done === 0 || done === total
    );
  } else {
    setStatus(STAGE_TEXT[stage] || "Working…", undefined, true);
  }
}
