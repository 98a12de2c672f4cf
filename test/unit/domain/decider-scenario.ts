// Given / when / then for pure deciders: given past decisions (folded as recorded events), when a decision
// runs at a time by an actor, then it yields an event or rejects with a domain error.
import { expect } from 'chai';
import type { Decide, Decision, DecisionContext, IdKind } from '../../../src/domain/decision.js';
import { DomainError } from '../../../src/domain/errors.js';
import { EVENT_SCHEMA, type RecordedEvent } from '../../../src/domain/events.js';
import { emptyState, evolve, type StreamState } from '../../../src/domain/resource-state.js';

export const T0 = Date.UTC(2024, 0, 8, 12, 0, 0); // a Monday

export interface When {
  now?: number;
  actorId?: number | null;
}

export class Scenario {
  private readonly ids = new Map<IdKind, number>();
  readonly state: StreamState;

  constructor(stream: string) {
    this.state = emptyState(stream);
  }

  /** Folds a decision into the state as the stream's next event. */
  given(decide: Decide<StreamState>, when: When = {}): this {
    this.record(this.decide(decide, when), when);
    return this;
  }

  /** Runs a decision without folding it. */
  decide(decide: Decide<StreamState>, when: When = {}): Decision {
    const ids = this.ids;
    const context: DecisionContext = {
      now: when.now ?? T0,
      actorId: when.actorId ?? null,
      nextId(kind) {
        const next = (ids.get(kind) ?? 100) + 1;
        ids.set(kind, next);
        return next;
      },
    };
    return decide(this.state, context);
  }

  /** Runs a decision and folds it; returns the decision. */
  when(decide: Decide<StreamState>, when: When = {}): Decision {
    const decision = this.decide(decide, when);
    this.record(decision, when);
    return decision;
  }

  /** Expects the decision to be rejected with `code` (and, when given, a validation problem on `field`). */
  rejects(decide: Decide<StreamState>, code: string, field?: string, when: When = {}): DomainError {
    let caught: unknown;
    try {
      this.decide(decide, when);
    } catch (error) {
      caught = error;
    }
    expect(caught, 'decision should be rejected').to.be.instanceOf(DomainError);
    const error = caught as DomainError;
    expect(error.code).to.equal(code);
    if (field) expect(error.details.validation_errors?.map((e) => e.field)).to.include(field);
    return error;
  }

  private record(decision: Decision, when: When): void {
    const version = this.state.version + 1;
    const event: RecordedEvent = {
      type: decision.type,
      data: decision.data,
      meta: { schema: EVENT_SCHEMA, occurred_at: when.now ?? T0, performed_by: when.actorId ?? null, command_id: `c${version}` },
      id: `e${version}`,
      stream: this.state.stream,
      version,
      position: version,
    };
    evolve(this.state, event);
  }
}
