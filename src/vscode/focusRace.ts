/** How soon after a quick input is shown a hide is taken for VS Code's focus race, not the person. */
export const FOCUS_RACE_MS = 500;

/**
 * A quick input shown just after the command palette closed over a webview editor is often hidden
 * at once by VS Code itself: the palette gives focus back to the webview, whose frames take it
 * asynchronously, after the new quick input has focused its own box (microsoft/vscode#93950). The
 * person saw it flash, or not at all. Such a hide is answered by showing the input again, once.
 * A hide is the person's when it comes later, after they typed, or while no webview editor is
 * active (an Escape in the first half second, before typing, shows the input once more).
 */
export class StolenFocusGuard {
  private shownAt: number | undefined;
  private shownAgain = false;
  private typed = false;

  constructor(private readonly now: () => number = () => performance.now()) {}

  shown(): void {
    this.shownAt ??= this.now();
  }

  /** The person typed in the input: it had the focus, and they are using it. */
  typedIn(): void {
    this.typed = true;
  }

  /** Whether the hide that just came should be answered by showing the input again. */
  hideWasStolen(webviewEditorActive: boolean): boolean {
    if (this.shownAgain || this.typed || this.shownAt === undefined || !webviewEditorActive) return false;
    if (this.now() - this.shownAt > FOCUS_RACE_MS) return false;
    this.shownAgain = true;
    return true;
  }
}
