// ScopeKit workspace: the one script of our own. It adds what a page
// cannot do without script: copying a merge data path. Everything else
// is plain HTML made partial by htmx.
document.documentElement.classList.add("js"); // rows save as they change: no Save buttons

document.addEventListener("click", function (ev) {
  var btn = ev.target.closest("button[data-copy]");
  if (!btn) return;
  ev.preventDefault();
  var text = btn.getAttribute("data-copy");
  var done = function () { btn.textContent = "Copied"; setTimeout(function () { btn.textContent = "Copy"; }, 1500); };
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(text).then(done, function () { window.prompt("Copy the path:", text); });
  } else {
    window.prompt("Copy the path:", text);
  }
});
