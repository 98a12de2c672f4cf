// A story card as Tracker drew it: type icon, estimate, name, label chips, owners' initials, a blocked
// marker, the comment count, and the next-state buttons (or the point scale, for a story that must be
// estimated first; neither for a viewer). Alt+ArrowUp / Alt+ArrowDown on a card that can be dragged
// moves the story for people who do not drag.
import type { Membership, Project, Story } from './types';
import { needsEstimate, pointScale, stateActions, STATE_NAMES } from './story-rules';
import { points } from './format';
import { pure } from './pure';

export interface CardActions {
  open(story: Story): void;
  update(story: Story, body: Record<string, unknown>): void;
  filterByLabel(name: string): void;
  moveByKeyboard(story: Story, delta: -1 | 1): void;
}

/** The one element (in the board) that tells how to move a card with the keyboard. */
export const MOVE_HINT_ID = 'card-move-hint';

const TYPE_SYMBOLS: Record<Story['story_type'], string> = { feature: '★', bug: '✱', chore: '⚙', release: '⚑' };

/** What every card of a board shares (kept the same object between renders). */
export interface CardContext {
  project: Project;
  people: ReadonlyMap<number, Membership['person']>;
  actions: CardActions;
  /** The person may change the project's stories (owner or member): a viewer gets no write controls. */
  writable: boolean;
}

export interface StoryCardProps extends CardContext {
  story: Story;
  /** The card can be dragged (writable, in Current, Backlog or Icebox, not accepted). */
  draggable: boolean;
  selected: boolean;
}

/** Renders again only when its story, selection or the board's shared props change. */
export const StoryCard = pure(function StoryCard(props: StoryCardProps) {
  const { story, project, people, actions } = props;
  const blocked = (story.blockers ?? []).some((blocker) => !blocker.resolved);
  const comments = story.comment_ids?.length ?? 0;
  const owners = story.owner_ids.map((id) => people.get(id)).filter((person) => person !== undefined);
  const estimateFirst = needsEstimate(project, story) && story.current_state !== 'accepted';
  const onKeyDown = (event: KeyboardEvent) => {
    if (!props.draggable || !event.altKey || (event.key !== 'ArrowUp' && event.key !== 'ArrowDown')) return;
    event.preventDefault();
    actions.moveByKeyboard(story, event.key === 'ArrowUp' ? -1 : 1);
  };
  return (
    <li
      class={`card type-${story.story_type} state-${story.current_state}${props.draggable ? ' draggable' : ''}${props.selected ? ' selected' : ''}`}
      data-story-id={story.id}
      onKeyDown={onKeyDown}
    >
      <div class="card-line">
        <span class={`type-icon type-${story.story_type}`} role="img" aria-label={story.story_type}>
          {TYPE_SYMBOLS[story.story_type]}
        </span>
        {story.estimate !== undefined && story.estimate !== null ? (
          <span class="estimate" title={`${points(story.estimate)} points`}>
            {points(story.estimate)}
          </span>
        ) : null}
        <button type="button" class="story-name" onClick={() => actions.open(story)} aria-describedby={props.draggable ? MOVE_HINT_ID : undefined}>
          {story.name}
        </button>
      </div>
      <div class="card-line card-meta">
        {blocked ? (
          <span class="blocked" title="An unresolved blocker">
            Blocked
          </span>
        ) : null}
        {story.labels.map((label) => (
          <button key={label.id} type="button" class="label-chip" onClick={() => actions.filterByLabel(label.name)} aria-label={`Stories labelled ${label.name}`}>
            {label.name}
          </button>
        ))}
        {comments > 0 ? (
          <span class="comment-count" aria-label={`${comments} comment${comments === 1 ? '' : 's'}`} title="Comments">
            <svg class="icon" viewBox="0 0 16 16" width="12" height="12" aria-hidden="true" focusable="false">
              <path fill="currentColor" d="M2 2h12a1 1 0 0 1 1 1v8a1 1 0 0 1-1 1H6l-3 3v-3H2a1 1 0 0 1-1-1V3a1 1 0 0 1 1-1Z" />
            </svg>
            {comments}
          </span>
        ) : null}
        {owners.map((person) => (
          <abbr key={person!.id} class="owner" title={person!.name}>
            {person!.initials ?? person!.name}
          </abbr>
        ))}
        <span class="card-actions">
          {!props.writable ? null : estimateFirst ? (
            <span class="point-scale" role="group" aria-label={`Estimate "${story.name}"`}>
              {pointScale(project).map((value) => (
                <button key={value} type="button" class="estimate-button" onClick={() => actions.update(story, { estimate: value })} aria-label={`${points(value)} points`}>
                  {points(value)}
                </button>
              ))}
            </span>
          ) : (
            stateActions(story).map((action) => (
              <button key={action.kind} type="button" class={`state-button ${action.kind}`} onClick={() => actions.update(story, { current_state: action.state })}>
                {action.label}
              </button>
            ))
          )}
          {story.current_state === 'accepted' ? <span class="state-name">{STATE_NAMES.accepted}</span> : null}
        </span>
      </div>
    </li>
  );
});
