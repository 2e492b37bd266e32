// What the files share: the page's fixed elements (page.html), the limits that more than one file applies,
// and `app`, the page's state that more than one file changes. State and limits that one file alone uses
// stay in that file.

import { byId } from "./00-basics.mjs";

export var PREVIEW_LIMIT = 64 * 1048576; // photos and records.csv larger than this are not shown (saving still works)
export var TABLE_COLUMNS = 50; // columns shown (the others are in records.csv)

export var form = byId("open-form");
export var fileInput = byId("backup-file");
export var recoveryInput = byId("recovery-files");
export var recoveryNote = byId("recovery-note");
export var recoveryClear = byId("recovery-clear");
export var passphrase = byId("passphrase");
export var openButton = byId("open");
export var cancelButton = byId("cancel");
export var progressBar = byId("progress");
export var statusText = byId("status-text");
export var alertBox = byId("error");
export var result = byId("result");
export var dropZone = byId("drop-zone");
export var viewer = byId("viewer");

export var app = {
  session: null, // the opened backup and what the page made from it (41-backup-view.mjs), until it is reset
  busy: false, // a task is running (13-tasks.mjs): opening, salvaging or saving
};
