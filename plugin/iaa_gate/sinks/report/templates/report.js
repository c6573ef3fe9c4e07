"use strict";
// Sortable tables (click a column header) and the disputed tasks' filter box.
function sortKey(row, col) {
  var cell = row.cells[col];
  var v = cell.hasAttribute("data-sort") ? cell.getAttribute("data-sort") : cell.textContent.trim();
  var x = Number(v);
  return v !== "" && !isNaN(x) ? [0, x] : [1, v.toLowerCase()];
}
function compareKeys(a, b) {
  return a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0);
}
document.querySelectorAll("table.sortable").forEach(function (table) {
  var body = table.tBodies[0];
  table.tHead.querySelectorAll("button").forEach(function (button) {
    button.addEventListener("click", function () {
      var th = button.parentElement;
      var col = th.cellIndex;
      var asc = th.getAttribute("aria-sort") !== "ascending";
      table.tHead.querySelectorAll("th").forEach(function (h) { h.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", asc ? "ascending" : "descending");
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (r, s) {
        var c = compareKeys(sortKey(r, col), sortKey(s, col));
        return asc ? c : -c;
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
});
document.querySelectorAll("input.filter").forEach(function (input) {
  var table = document.getElementById(input.getAttribute("data-table"));
  var counter = document.getElementById(input.getAttribute("data-count"));
  input.addEventListener("input", function () {
    var q = input.value.trim().toLowerCase();
    var shown = 0;
    Array.prototype.forEach.call(table.tBodies[0].rows, function (r) {
      var hit = r.textContent.toLowerCase().indexOf(q) >= 0;
      r.hidden = !hit;
      if (hit) shown += 1;
    });
    counter.textContent = String(shown);
  });
});
