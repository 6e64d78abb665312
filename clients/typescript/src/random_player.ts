// The bot's strategy: a uniformly random legal action, from a seeded generator so that a run can
// be repeated.

import type { DecisionRequest__Output } from "./generated/arena/v1/DecisionRequest";
import type { LegalAction__Output } from "./generated/arena/v1/LegalAction";

export class RandomPlayer {
  private state: number;

  constructor(readonly seed: number) {
    this.state = seed >>> 0;
  }

  /** One of the request's legal actions, or undefined when the request accepts only free text. */
  choose(request: DecisionRequest__Output): LegalAction__Output | undefined {
    const actions = request.legal_actions;
    if (actions.length === 0) {
      return undefined;
    }
    return actions[Math.floor(this.next() * actions.length)];
  }

  /** mulberry32: a small, well-mixed 32-bit generator; uniform in [0, 1). */
  private next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
}
