// What the files share: the page's fixed elements (page.html), the limits that more than one file applies,
// and `app`, the page's state that more than one file changes. State and limits that one file alone uses
// stay in that file.
//
// Uses:
//   00-basics.js           byId

var PREVIEW_LIMIT = 64 * 1048576; // photos and records.csv larger than this are not shown (saving still works)
var TABLE_COLUMNS = 50; // columns shown (the others are in records.csv)

var form = byId("open-form");
var fileInput = byId("backup-file");
var recoveryInput = byId("recovery-files");
var recoveryNote = byId("recovery-note");
var recoveryClear = byId("recovery-clear");
var passphrase = byId("passphrase");
var openButton = byId("open");
var cancelButton = byId("cancel");
var progressBar = byId("progress");
var statusText = byId("status-text");
var alertBox = byId("error");
var result = byId("result");
var dropZone = byId("drop-zone");
var viewer = byId("viewer");

var app = {
  session: null, // the opened backup and what the page made from it (41-backup-view.js), until it is reset
  busy: false, // a task is running (13-tasks.js): opening, salvaging or saving
};
