// A person runs tools by hand: palette -> "MCP Host: Run Tool…" -> picks a tool -> answers the
// quick inputs (flat arguments) or fills the form (nested arguments) -> confirms a destructive tool
// -> sees the result view. Screenshots of the form and the results go to test-results/.
import { join } from 'node:path';
import { REPO_ROOT, chooseCommand, openViewContainer, treeItem } from '../../scripts/vscode-host/host.mjs';
import { RESULTS, flavourFromArgs, scenario, webview } from './lib.mjs';

const flavour = flavourFromArgs();


/** Opens "Run Tool…" from the palette and types `title` in its filter. */
async function pickToolTyped(page, title) {
  // The palette, as a person uses it, with Enter (the command's own quick pick reuses the same
  // widget); the second run of it comes from a result view, a webview that takes the focus back.
  const widget = page.locator('.quick-input-widget');
  await chooseCommand(page, 'MCP Host: Run Tool…', { byKeyboard: true });
  await widget.locator('.quick-input-title', { hasText: 'Run Tool' }).waitFor({ state: 'visible', timeout: 10_000 });
  // A person reads the picker before typing; by then VS Code's late focus hand-back (see below)
  // has happened, and the picker must still be there.
  await page.waitForTimeout(250);
  await widget.locator('input.input').fill(title, { timeout: 5000 });
  await widget.locator('.quick-input-list .monaco-list-row', { hasText: title }).first().waitFor({ state: 'visible', timeout: 10_000 });
}

async function pickTool(page, title) {
  await pickToolTyped(page, title);
  await page.keyboard.press('Enter');
}

await scenario('run-tool', flavour, async ({ page, step }) => {
  await step('the servers run and list their tools', async () => {
    await openViewContainer(page, 'MCP Host', 30_000);
    for (const name of ['everything', 'filesystem']) {
      await treeItem(page, name).locator('.label-description', { hasText: /^running · \d+ tools/ }).waitFor({ state: 'visible', timeout: 45_000 });
    }
  });

  await step('Run Tool… lists every running server’s tools; flat arguments are asked step by step', async () => {
    await pickTool(page, 'Get Annotated Message Tool');
    const widget = page.locator('.quick-input-widget');
    // Step 1/2: an enum, picked from a list.
    await widget.locator('.quick-input-title', { hasText: 'Run Get Annotated Message Tool — everything' }).waitFor({ state: 'visible', timeout: 10_000 });
    await widget.getByText('1/2').first().waitFor({ state: 'visible', timeout: 5000 });
    await widget.locator('.quick-input-list .monaco-list-row', { hasText: 'success' }).waitFor({ state: 'visible', timeout: 5000 });
    await widget.locator('input.input').fill('success');
    await page.keyboard.press('Enter');
    // Step 2/2: an optional boolean with a default.
    await widget.getByText('2/2').first().waitFor({ state: 'visible', timeout: 5000 });
    await widget.locator('.quick-input-list .monaco-list-row', { hasText: 'Skip' }).waitFor({ state: 'visible', timeout: 5000 });
    await widget.locator('input.input').fill('true');
    await page.keyboard.press('Enter');
  });

  await step('the result view shows the text and the image', async () => {
    await page.locator('.tabs-container .tab', { hasText: 'Get Annotated Message Tool — everything' }).waitFor({ state: 'visible', timeout: 20_000 });
    const view = webview(page);
    await view.locator('#status', { hasText: 'Success' }).waitFor({ state: 'visible', timeout: 20_000 });
    await view.locator('section.block-image img.result-image').waitFor({ state: 'visible', timeout: 10_000 });
    await view.locator('section.block-text', { hasText: 'Operation completed successfully' }).waitFor({ state: 'visible', timeout: 10_000 });
    await page.mouse.move(1200, 700);
    await page.screenshot({ path: join(RESULTS, `tool-result-image-${flavour}.png`) });
  });

  await step('a tool with nested arguments opens the form; invalid values are shown at their fields', async () => {
    await pickTool(page, 'Edit File');
    await page.locator('.tabs-container .tab', { hasText: 'Run Edit File — filesystem' }).waitFor({ state: 'visible', timeout: 20_000 });
    const form = webview(page);
    await form.locator('h1', { hasText: 'Run Edit File — filesystem' }).waitFor({ state: 'visible', timeout: 20_000 });
    await form.locator('.warning', { hasText: 'destructive' }).waitFor({ state: 'visible' });
    await form.locator('[data-control-for="/path"]').fill(join(REPO_ROOT, 'demo', 'notes.txt'));
    await form.locator('button[data-add-for="/edits"]').click();
    await form.locator('[data-control-for="/edits/0/oldText"]').waitFor({ state: 'visible' });
    // Submit with the edit's oldText missing: refused, the error shows at the field.
    await form.locator('[data-control-for="/edits/0/newText"]').fill('Notes kept by the demo.');
    await form.locator('[data-control-for="/dryRun"]').check();
    await form.locator('#submit').click();
    await form.locator('[data-path="/edits/0/oldText"] .field-error', { hasText: 'is required' }).or(form.locator('.summary', { hasText: 'oldText' })).first().waitFor({ state: 'visible', timeout: 10_000 });
  });

  await step('filled in, the form is what a person sees before running (screenshot)', async () => {
    const form = webview(page);
    await form.locator('[data-control-for="/edits/0/oldText"]').fill('Notes written by the filesystem server demo live here.');
    await form.locator('[data-path="/edits/0/oldText"] .field-error').waitFor({ state: 'hidden', timeout: 10_000 });
    await page.waitForTimeout(400);
    await page.mouse.move(1200, 780);
    await page.screenshot({ path: join(RESULTS, `tool-form-${flavour}.png`) });
  });

  await step('running a destructive tool asks for confirmation first', async () => {
    await webview(page).locator('#submit').click();
    const widget = page.locator('.quick-input-widget');
    await widget.locator('.quick-input-title', { hasText: 'Run "Edit File" on "filesystem"?' }).waitFor({ state: 'visible', timeout: 15_000 });
    await widget.locator('.quick-input-list .monaco-list-row', { hasText: 'Arguments:' }).waitFor({ state: 'visible' });
    await page.screenshot({ path: join(RESULTS, `tool-confirm-${flavour}.png`) });
    await page.keyboard.press('Enter');
    await widget.waitFor({ state: 'hidden', timeout: 10_000 });
  });

  await step('the result view shows the diff the server returned, and the structured content', async () => {
    await page.locator('.tabs-container .tab', { hasText: 'Edit File — filesystem' }).first().waitFor({ state: 'visible', timeout: 20_000 });
    const view = webview(page);
    await view.locator('#status', { hasText: 'Success' }).waitFor({ state: 'visible', timeout: 20_000 });
    await view.locator('section.block-text .markdown pre code', { hasText: '+Notes kept by the demo.' }).waitFor({ state: 'visible', timeout: 10_000 });
    await view.locator('section.block-structured').waitFor({ state: 'visible' });
    await page.waitForTimeout(300);
    await page.mouse.move(1200, 780);
    await page.screenshot({ path: join(RESULTS, `tool-result-${flavour}.png`) });
  });
});
