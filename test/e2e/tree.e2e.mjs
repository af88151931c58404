// A person opens the MCP Host view, sees the demo servers start (one of them remote), expands one and sees its tools.
import { join } from 'node:path';
import { openViewContainer, treeItem } from '../../scripts/vscode-host/host.mjs';
import { RESULTS, collapseServer, flavourFromArgs, scenario } from './lib.mjs';

const flavour = flavourFromArgs();

await scenario('tree', flavour, async ({ page, step }) => {
  await step('the activity bar has the MCP Host container, and it opens', async () => {
    await openViewContainer(page, 'MCP Host', 30_000);
  });

  await step('the four demo servers (three over stdio, one over Streamable HTTP) appear and reach "running"', async () => {
    for (const name of ['everything', 'filesystem', 'everything-remote', 'apps-basic']) {
      const row = treeItem(page, name);
      await row.waitFor({ state: 'visible', timeout: 30_000 });
      await row.locator('.label-description', { hasText: /^running/ }).waitFor({ state: 'visible', timeout: 30_000 });
    }
  });

  await step('expanding Tools under "everything" shows its tools', async () => {
    await collapseServer(page, 'apps-basic');
    const everything = treeItem(page, 'everything');
    if ((await everything.getAttribute('aria-expanded')) !== 'true') await everything.click();
    const tools = page.locator('.part.sidebar .monaco-list-row[role="treeitem"][aria-level="2"]').filter({ has: page.locator('.label-name', { hasText: /^Tools$/ }) }).first();
    await tools.waitFor({ state: 'visible', timeout: 15_000 });
    await tools.click();
    await treeItem(page, 'Echo Tool').or(treeItem(page, 'echo')).first().waitFor({ state: 'visible', timeout: 15_000 });
  });

  await step('the status bar counts the running servers', async () => {
    await page.locator('.part.statusbar [id$="mcpHost.status"]', { hasText: 'MCP 4/4' }).waitFor({ state: 'visible', timeout: 15_000 });
  });

  await step('a screenshot of the tree is saved', async () => {
    await page.mouse.move(900, 500);
    await page.waitForTimeout(300);
    await page.screenshot({ path: join(RESULTS, `tree-${flavour}.png`) });
  });
});
