/** Runs and credits: the server's recent runs with outcome and credits, and the warehouse's budget. */

function getRunsAndCredits() {
  const listing = callServer_('GET', '/runs');
  const budget = callServer_('GET', '/budget');
  return {
    runs: mergeRuns_(listing).slice(0, 50).map(runView_),
    queue: { queued: listing.queued, running: listing.running },
    budget: {
      daily: budgetLine_('Today', budget.daily),
      monthly: budgetLine_('This month', budget.monthly),
      perRun: 'At most ' + plural_(budget.maxCreditsPerRun, 'credit') + ' per run.',
    },
  };
}

/** "Today: 12 credits spent of 500 (488 left)" or "…, no limit". */
function budgetLine_(label, b) {
  if (!b) return label + ': unknown';
  const spent = label + ': ' + plural_(b.spent, 'credit') + ' spent';
  return b.limit === null ? spent + ', no limit' : spent + ' of ' + formatCount_(b.limit) + ' (' + formatCount_(b.remaining) + ' left)';
}

/** The server's own queue first, then the warehouse's other recent runs (scheduled, CLI, earlier server starts). */
function mergeRuns_(listing) {
  const seen = {};
  listing.runs.forEach(function (r) { if (r.warehouseRunId) seen[r.warehouseRunId] = true; });
  const others = (listing.recent || []).filter(function (r) { return !seen[r.warehouseRunId]; });
  return listing.runs.concat(others);
}
