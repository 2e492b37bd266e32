// The alert (#error): what went wrong and what to do, in words, what the damage of a damaged backup
// touches, the offer to show what is intact, then the code in small type; and what becomes of a backup
// that fails a check once it is shown.

import * as core from "../core/index.mjs";
import { capitalized, element } from "./00-basics.mjs";
import { alertBox } from "./01-page-state.mjs";
import { setStatus } from "./10-status.mjs";
import { resetResult } from "./20-opening.mjs";

/**
 * The alert: first what happened and what to do, in words; then, for a damaged or cut backup, what the
 * damage touches, `more` (paragraphs: the numbers of a repair not made, the offer to repair), and the offer
 * to show what is intact (`offerSalvage`, a function); then the code and details in small type.
 */
export function showError(error, focus, title, offerSalvage, more) {
  var failure = core.asGoshuinError(error);
  if (failure.code === "internal") console.error(error); // a bug of this page: keep its stack for the console
  alertBox.replaceChildren();
  var lead = element("p", { class: "error-lead" });
  lead.append(element("strong", null, (title || "Could not open the backup") + "."), " " + core.errorAdvice(failure));
  alertBox.append(lead);
  var touched = damageText(failure.damage);
  if (touched) alertBox.append(element("p", { id: "error-damage" }, touched));
  if (more) alertBox.append.apply(alertBox, more);
  if (offerSalvage) {
    var offer = element("p", { class: "salvage-offer" });
    var button = element("button", { type: "button", id: "salvage", "aria-describedby": "salvage-hint" }, "Show what is intact");
    button.addEventListener("click", offerSalvage);
    offer.append(
      button,
      " ",
      element("span", { id: "salvage-hint" }, "If this is your only copy: the page shows the records and photos that are still intact, says what is lost, and lets you save them.")
    );
    alertBox.append(offer);
  }
  var code = element("p", { class: "error-code" });
  code.append("Code ", element("code", { class: "code" }, failure.code));
  if (failure.chunkIndex !== undefined) code.append(" (chunk " + failure.chunkIndex + ")");
  if (failure.detail) code.append(" · ", element("span", { class: "detail" }, "Details: " + failure.detail));
  alertBox.append(code);
  if (focus) focus.focus();
}

/** "a", "a and b", "a, b and c". */
export function listText(items) {
  if (items.length <= 1) return items.join("");
  return items.slice(0, -1).join(", ") + " and " + items[items.length - 1];
}

/** "chunk 12", "chunks 12–13", "chunks 30 on" (a run whose end is not known). */
function chunksText(first, last) {
  if (last === null || last === undefined) return "chunks " + first.toLocaleString("en-US") + " on";
  if (first === last) return "chunk " + first.toLocaleString("en-US");
  return "chunks " + first.toLocaleString("en-US") + "–" + last.toLocaleString("en-US");
}

/**
 * What the damaged chunks hold, from the intact list of contents (Spec/backup-v1.md §4.2): "Chunk 12 holds
 * IMG_0012.HEIC and the start of IMG_0013.HEIC."; or that the list is damaged too.
 */
function damageText(damage) {
  if (!damage) return "";
  if (!damage.named) return "Which files the damage hits cannot be said: the backup's list of its files is damaged too, or not valid.";
  var parts = damage.runs.map(function (run) {
    var names = run.entries.map(function (entry) {
      return { whole: "", start: "the start of ", end: "the end of ", part: "part of " }[entry.part] + entry.name;
    });
    var single = run.first === run.last;
    var what = names.length ? listText(names) : "nothing of any file";
    return chunksText(run.first, run.last) + (single ? " holds " : " hold ") + what;
  });
  return capitalized(parts.join("; ")) + ".";
}

export function clearError() {
  alertBox.replaceChildren();
}

/** Stop, said calmly in the status line: nothing is wrong with the backup. */
export function showStopped(text) {
  clearError();
  setStatus(text, null, true);
}

/** A backup that fails a check after it was shown (its file changed on disk): nothing of it stays. */
export function fail(error, title) {
  var failure = core.asGoshuinError(error);
  if (failure.code === "interrupted") {
    showStopped("Stopped. Nothing was saved: the file that was being written was discarded.");
    return;
  }
  if (failure.code === "io" || failure.code === "no_space" || failure.code === "internal" || failure.code === "browser_limit") {
    showError(failure, null, title);
    return;
  }
  resetResult();
  document.body.dataset.state = "failed";
  showError(failure, null, "The backup no longer reads as it did");
}
