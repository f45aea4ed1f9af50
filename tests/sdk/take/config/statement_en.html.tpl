<!-- LEAGUES level1 level2 -->
<div class="statement-body">
  <p>Take: each round every player is sent a number X and answers how much of it it takes
  (0 to X), which it scores. An answer out of range deactivates it.</p>
  <!-- BEGIN level1 -->
  <p>In this league X is at most 100.</p>
  <!-- END -->
  <!-- BEGIN level2 -->
  <p>In this league X is at most 1000.</p>
  <!-- END -->
</div>
