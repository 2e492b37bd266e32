// What this browser can do: without WebCrypto, DecompressionStream('deflate-raw') or IntersectionObserver,
// the page says so and Open stays disabled; which kernels it runs (WebAssembly, or the JavaScript fallback)
// is on the body, `data-kernels`, for the tests and the benchmark. It runs as the script loads, last.

import * as core from "../core/index.mjs";
import { openButton } from "./01-page-state.mjs";
import { showError } from "./11-errors.mjs";

(function checkSupport() {
  var missing = [];
  if (!(window.crypto && window.crypto.subtle)) missing.push("WebCrypto");
  try {
    new DecompressionStream("deflate-raw");
  } catch (error) {
    missing.push("DecompressionStream('deflate-raw')");
  }
  if (typeof IntersectionObserver !== "function") missing.push("IntersectionObserver");
  document.body.dataset.kernels = core.kernels().implementation;
  if (missing.length > 0) {
    showError(new core.GoshuinError("browser_unsupported", "missing: " + missing.join(", ")));
    openButton.disabled = true;
  }
})();
