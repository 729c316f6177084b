/** Runs and credits: the server's recent runs with outcome and credits, and the warehouse's budget. */

function getRunsAndCredits() {
  const listing = callServer_('GET', '/runs');
  const budget = callServer_('GET', '/budget');
  return {
    runs: mergeRuns_(listing).slice(0, 50).map(runView_),
    queue: { queued: listing.queued, running: listing.running },
    budget: {
      daily: budgetLine_('Today', budget.daily, budget.estimated),
      monthly: budgetLine_('This month', budget.monthly, budget.estimated),
      perRun: 'At most ' + plural_(budget.maxCreditsPerRun, 'credit') + ' per run.' +
        (budget.estimated ? ' ≈: estimated, at the built-in prices, not your account\'s.' : ''),
    },
  };
}

/** "Today: 12 credits spent of 500 (488 left)" or "…, no limit"; "≈12" when the server says its prices are estimates. */
function budgetLine_(label, b, estimated) {
  if (!b) return label + ': unknown';
  const spent = label + ': ' + (estimated ? '≈' : '') + plural_(b.spent, 'credit') + ' spent';
  return b.limit === null ? spent + ', no limit' : spent + ' of ' + formatCount_(b.limit) + ' (' + formatCount_(b.remaining) + ' left)';
}

/** The server's own queue first, then the warehouse's other recent runs (scheduled, CLI, earlier server starts). */
function mergeRuns_(listing) {
  const seen = {};
  listing.runs.forEach(function (r) { if (r.warehouseRunId) seen[r.warehouseRunId] = true; });
  const others = (listing.recent || []).filter(function (r) { return !seen[r.warehouseRunId]; });
  return listing.runs.concat(others);
}
