/** The Skillsync menu and the windows it opens. */

function onOpen() {
  SpreadsheetApp.getUi()
    .createMenu(TITLE_)
    .addItem('Run a pipeline…', 'showRunSidebar')
    .addItem('Refresh this tab', 'refreshThisTab')
    .addItem('Schedule this tab…', 'showScheduleDialog')
    .addItem('Load a table…', 'showLoadDialog')
    .addSeparator()
    .addItem('Watch these rows…', 'showWatchDialog')
    .addItem('Show alerts', 'showAlerts')
    .addSeparator()
    .addItem('Runs and credits', 'showRunsDialog')
    .addItem('Settings…', 'showSettingsDialog')
    .addToUi();
}

function onInstall(e) {
  onOpen(e);
}

function showRunSidebar() {
  SpreadsheetApp.getUi().showSidebar(page_('RunSidebar').setTitle('Skillsync: run a pipeline'));
}

function showLoadDialog() {
  SpreadsheetApp.getUi().showModalDialog(page_('LoadDialog').setWidth(520).setHeight(600), 'Skillsync: load a table');
}

function showScheduleDialog() {
  SpreadsheetApp.getUi().showModalDialog(page_('ScheduleDialog').setWidth(720).setHeight(640), 'Skillsync: schedule this tab');
}

function showRunsDialog() {
  SpreadsheetApp.getUi().showModalDialog(page_('RunsDialog').setWidth(720).setHeight(520), 'Skillsync: runs and credits');
}

function showSettingsDialog() {
  SpreadsheetApp.getUi().showModalDialog(page_('SettingsDialog').setWidth(480).setHeight(380), 'Skillsync: settings');
}

/** Used by the pages' templates: <?!= include('Styles') ?>. */
function include(name) {
  return HtmlService.createHtmlOutputFromFile(name).getContent();
}

function page_(name) {
  return HtmlService.createTemplateFromFile(name).evaluate();
}
