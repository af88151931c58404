// Every command id of the extension, in one place: registration, tree items and executeCommand
// calls use these names; test/unit/command-ids.test.ts checks them against package.json.
// No `vscode` import here, so plain Node tests can read it.

/** Commands contributed in package.json (palette, menus, tree). */
export const Commands = {
  refresh: 'mcpHost.refresh',
  startServer: 'mcpHost.startServer',
  stopServer: 'mcpHost.stopServer',
  restartServer: 'mcpHost.restartServer',
  startAll: 'mcpHost.startAll',
  stopAll: 'mcpHost.stopAll',
  signIn: 'mcpHost.signIn',
  signOut: 'mcpHost.signOut',
  showLogs: 'mcpHost.showLogs',
  openConfiguration: 'mcpHost.openConfiguration',
  addServer: 'mcpHost.addServer',
  browseServers: 'mcpHost.browseServers',
  checkForUpdates: 'mcpHost.checkForUpdates',
  importServers: 'mcpHost.importServers',
  editInput: 'mcpHost.editInput',
  forgetInputs: 'mcpHost.forgetInputs',
  runTool: 'mcpHost.runTool',
  runToolWithForm: 'mcpHost.runToolWithForm',
  readResource: 'mcpHost.readResource',
  copyResourceUri: 'mcpHost.copyResourceUri',
  getPrompt: 'mcpHost.getPrompt',
  cancelTask: 'mcpHost.cancelTask',
  showTaskResult: 'mcpHost.showTaskResult',
  resetSamplingConsent: 'mcpHost.resetSamplingConsent',
  diagnoseServer: 'mcpHost.diagnoseServer',
  serverReport: 'mcpHost.serverReport',
  showTraffic: 'mcpHost.showTraffic',
  toggleShareWithChat: 'mcpHost.toggleShareWithChat',
  toggleToolForChat: 'mcpHost.toggleToolForChat',
} as const;

/** Commands registered but not contributed: the integration tests reach the UI through them. */
export const InternalCommands = {
  toolsTestHook: 'mcpHost.tools.testHook',
  resourceSubscriptions: 'mcpHost.internal.resourceSubscriptions',
  forgetResourceReads: 'mcpHost.internal.forgetResourceReads',
  trafficTestHook: 'mcpHost.internal.trafficTestHook',
} as const;

/** Commands VS Code itself provides for our contributions (the view's focus command). */
export const ViewCommands = {
  focusServers: 'mcpHost.servers.focus',
} as const;

export type CommandId = (typeof Commands)[keyof typeof Commands];
