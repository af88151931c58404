// A person reads resources from the sidebar: expands a server's Resources, clicks one, and reads it
// in an editor tab (Markdown, read-only); then clicks a resource template, types its variable with
// the server's suggestions in the quick input, and reads the resource it names; last, gets a prompt
// whose second argument's suggestions depend on the first. Screenshots go to test-results/.
import { join } from 'node:path';
import { openViewContainer, treeItem } from '../../scripts/vscode-host/host.mjs';
import { RESULTS, collapseServer, flavourFromArgs, scenario } from './lib.mjs';

const flavour = flavourFromArgs();

/** A second-level row (a category under a server) with this label. */
function category(page, label) {
  return page
    .locator('.part.sidebar .monaco-list-row[role="treeitem"][aria-level="2"]')
    .filter({ has: page.locator('.label-name', { hasText: new RegExp(`^${label}$`) }) })
    .first();
}

async function expand(row) {
  await row.waitFor({ state: 'visible', timeout: 20_000 });
  if ((await row.getAttribute('aria-expanded')) !== 'true') await row.click();
}

await scenario('resource', flavour, async ({ page, step }) => {
  await step('the MCP Host view shows "everything" running', async () => {
    await openViewContainer(page, 'MCP Host', 30_000);
    await treeItem(page, 'everything').locator('.label-description', { hasText: /^running/ }).waitFor({ state: 'visible', timeout: 45_000 });
  });

  await step('a click on a resource in the sidebar opens it as a read-only Markdown document', async () => {
    await collapseServer(page, 'apps-basic');
    await expand(treeItem(page, 'everything'));
    // Collapse Tools (long) so the resources are in view, then open Resources.
    const tools = category(page, 'Tools');
    if ((await tools.getAttribute('aria-expanded')) === 'true') await tools.click();
    await expand(category(page, 'Resources'));
    const resource = treeItem(page, 'architecture.md');
    await resource.waitFor({ state: 'visible', timeout: 15_000 });
    await resource.click();
    await page.locator('.tabs-container .tab[aria-label^="architecture.md"]').waitFor({ state: 'visible', timeout: 20_000 });
    const editor = page.locator('.editor-instance .view-lines').first();
    await editor.locator('.view-line', { hasText: 'Everything Server' }).first().waitFor({ state: 'visible', timeout: 20_000 });
    // The language comes from the resource's MIME type (text/markdown).
    await page.locator('.part.statusbar .statusbar-item', { hasText: /^Markdown$/ }).first().waitFor({ state: 'visible', timeout: 10_000 });
    // Read-only: typing changes nothing.
    await editor.click();
    await page.keyboard.type('xyz');
    await page.waitForTimeout(300);
    if ((await editor.locator('.view-line', { hasText: 'xyz' }).count()) !== 0) throw new Error('the resource document accepted typing');
    await page.mouse.move(1200, 780);
    await page.waitForTimeout(300);
    await page.screenshot({ path: join(RESULTS, `resource-document-${flavour}.png`) });
  });

  await step('a resource template asks its variable with the server’s suggestions, then opens the resource', async () => {
    await expand(category(page, 'Resource Templates'));
    await treeItem(page, 'Dynamic Text Resource').click();
    const widget = page.locator('.quick-input-widget');
    await widget.locator('.quick-input-title', { hasText: 'everything · Dynamic Text Resource (1/1)' }).waitFor({ state: 'visible', timeout: 15_000 });
    await widget.locator('input.input').fill('7');
    // server-everything's completion/complete answers with the id it accepts.
    await widget.locator('.quick-input-list .monaco-list-row', { hasText: 'suggested by the server' }).first().waitFor({ state: 'visible', timeout: 10_000 });
    await page.screenshot({ path: join(RESULTS, `resource-template-${flavour}.png`) });
    await page.keyboard.press('Enter');
    await widget.waitFor({ state: 'hidden', timeout: 10_000 });
    await page.locator('.tabs-container .tab[aria-label^="7.txt"]').waitFor({ state: 'visible', timeout: 20_000 });
    await page.locator('.editor-instance .view-lines .view-line', { hasText: 'Resource 7: This is a plaintext resource' }).first().waitFor({ state: 'visible', timeout: 20_000 });
  });

  await step('a prompt from the sidebar: arguments with suggestions, the messages as a Markdown document', async () => {
    const templates = category(page, 'Resource Templates');
    if ((await templates.getAttribute('aria-expanded')) === 'true') await templates.click();
    const resources = category(page, 'Resources');
    if ((await resources.getAttribute('aria-expanded')) === 'true') await resources.click();
    await expand(category(page, 'Prompts'));
    await treeItem(page, 'Team Management').click();
    const widget = page.locator('.quick-input-widget');
    await widget.locator('.quick-input-title', { hasText: 'everything · Team Management (1/2)' }).waitFor({ state: 'visible', timeout: 15_000 });
    await widget.locator('input.input').fill('Eng');
    // Wait until the list shows the suggestions for "Eng" (what is typed first, then the server's
    // one match) before clicking, as a person looks before clicking.
    const rows = widget.locator('.quick-input-list .monaco-list-row');
    await rows.filter({ hasText: 'Sales' }).waitFor({ state: 'detached', timeout: 10_000 });
    await rows.first().filter({ hasText: 'as typed' }).waitFor({ state: 'visible', timeout: 10_000 });
    await rows.filter({ hasText: 'Engineering' }).filter({ hasText: 'suggested by the server' }).first().click();
    await widget.locator('.quick-input-title', { hasText: 'everything · Team Management (2/2)' }).waitFor({ state: 'visible', timeout: 15_000 });
    // The suggestions for the name follow the department chosen first (completion context).
    for (const name of ['Alice', 'Bob', 'Charlie']) {
      await widget.locator('.quick-input-list .monaco-list-row', { hasText: name }).first().waitFor({ state: 'visible', timeout: 10_000 });
    }
    await page.screenshot({ path: join(RESULTS, `prompt-arguments-${flavour}.png`) });
    await widget.locator('.quick-input-list .monaco-list-row', { hasText: 'Bob' }).first().click();
    await widget.waitFor({ state: 'hidden', timeout: 10_000 });
    await page.locator('.tabs-container .tab[aria-label^="completable-prompt.md"]').waitFor({ state: 'visible', timeout: 20_000 });
    await page.locator('.editor-instance .view-lines .view-line', { hasText: 'Please promote Bob to the head of the Engineering team.' }).first().waitFor({ state: 'visible', timeout: 20_000 });
    await page.mouse.move(1200, 780);
    await page.waitForTimeout(300);
    await page.screenshot({ path: join(RESULTS, `prompt-document-${flavour}.png`) });
  });
});
