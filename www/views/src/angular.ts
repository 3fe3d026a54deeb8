// The tic-tac-toe View in Angular 21: a standalone component, compiled ahead
// of time by @analogjs/vite-plugin-angular as ext-apps' Angular example is;
// the App created in the component and connected in its constructor, as that
// example does (with connectWithViewState); signals of mcp-sealed-state/angular
// from field initializers (an injection context).
import { APP_INFO, DEBOUNCE_MS, INITIAL_UI, TABS, TOKEN_OPTIONS, describe, move, startOver, unmountOnTeardown } from "./game.js";
import { ApplicationRef, ChangeDetectionStrategy, Component, DestroyRef, computed, inject, provideZonelessChangeDetection, signal } from "@angular/core";
import { bootstrapApplication } from "@angular/platform-browser";
import { App } from "@modelcontextprotocol/ext-apps";
import { connectWithViewState } from "mcp-sealed-state/app";
import { injectSealedToken, injectViewState } from "mcp-sealed-state/angular";

@Component({
  selector: "[id=root]",
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <main
      id="game"
      class="play"
      data-framework="angular"
      [attr.data-phase]="v().data['data-phase']"
      [attr.data-busy]="v().data['data-busy']"
      [attr.data-tab]="v().data['data-tab']"
      [attr.data-store]="v().data['data-store']"
      [attr.data-write-through]="v().data['data-write-through']"
      [attr.data-host-model]="v().data['data-host-model']"
      [attr.data-source]="v().data['data-source']"
      [attr.data-token]="v().data['data-token']"
    >
      <p id="status" class="status">{{ v().text }}</p>
      <div id="board" class="board">
        @for (c of v().cells; track c.i) {
          <button type="button" [class]="c.className" [attr.data-cell]="c.i" [attr.data-mark]="c.mark" [disabled]="c.disabled" (click)="play(move, c.i)">{{ c.label }}</button>
        }
      </div>
      @if (v().canStart) {
        <button id="start-over" type="button" (click)="play(startOver)">Start over</button>
      }
      @if (message()) {
        <p id="game-message">{{ message() }}</p>
      }
      <div class="tabs" role="tablist">
        @for (tab of tabs; track tab) {
          <button type="button" role="tab" [attr.data-tab]="tab" [attr.aria-selected]="ui.value().tab === tab" (click)="selectTab(tab)">{{ tab }}</button>
        }
      </div>
      <pre id="panel">{{ v().panel }}</pre>
      <p id="store">{{ v().store }}</p>
    </main>
  `,
})
class TicTacToe {
  protected readonly tabs = TABS;
  private readonly app = new App(APP_INFO);
  protected readonly ui = injectViewState(this.app, INITIAL_UI, { debounceMs: DEBOUNCE_MS });
  private readonly token = injectSealedToken(this.app, TOKEN_OPTIONS);
  private readonly busy = signal(false);
  protected readonly message = signal<string | null>(null);
  protected readonly v = computed(() =>
    describe({ token: this.token.token(), source: this.token.source(), expired: this.token.expired(), status: this.token.status() }, this.ui.value(), this.ui.status(), this.busy()),
  );
  protected readonly move = (cell: number) => move(this.app, this.token.token(), cell);
  protected readonly startOver = () => startOver(this.app);

  constructor() {
    const appRef = inject(ApplicationRef);
    unmountOnTeardown(this.app, () => appRef.destroy());
    inject(DestroyRef).onDestroy(() => this.app.close());
    connectWithViewState(this.app).catch(console.error);
  }

  protected selectTab(tab: string) {
    this.ui.set((s) => ({ ...s, tab }));
  }

  protected async play(call: (cell: number) => Promise<string | null>, cell = -1) {
    this.busy.set(true);
    this.message.set(await call(cell));
    this.busy.set(false);
  }
}

bootstrapApplication(TicTacToe, { providers: [provideZonelessChangeDetection()] }).catch(console.error);
