// Filters the games list by bot and verdict (the table is complete without this script).
(function () {
  'use strict';
  var bot = document.getElementById('filter-bot');
  var verdict = document.getElementById('filter-verdict');
  var count = document.getElementById('filter-count');
  var rows = Array.prototype.slice.call(document.querySelectorAll('#games tbody tr'));
  function apply() {
    var b = bot.value, v = verdict.value, shown = 0;
    rows.forEach(function (r) {
      var ok = (!b || r.getAttribute('data-bots').split('\n').indexOf(b) >= 0) &&
        (!v || r.getAttribute('data-verdict').split(' ').indexOf(v) >= 0);
      r.hidden = !ok;
      if (ok) shown++;
    });
    count.textContent = shown + ' of ' + rows.length + ' games shown';
  }
  document.getElementById('filters').hidden = false;
  bot.onchange = apply;
  verdict.onchange = apply;
  apply();
})();
