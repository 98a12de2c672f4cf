// A component that renders again only when one of its props changed (shallow comparison): the board
// shows hundreds of cards, and a move or a status change must not re-render all of them.
import { Component, h, type ComponentType, type VNode } from 'preact';

export function pure<P extends object>(render: (props: P) => VNode | null): ComponentType<P> {
  return class Pure extends Component<P> {
    override shouldComponentUpdate(next: P): boolean {
      return !shallowEqual(this.props as P, next);
    }

    override render(props: P): VNode | null {
      return h(render as unknown as ComponentType<object>, props as object) as VNode;
    }
  };
}

function shallowEqual(a: object, b: object): boolean {
  const aKeys = Object.keys(a);
  if (aKeys.length !== Object.keys(b).length) return false;
  return aKeys.every((key) => key === 'children' || (a as Record<string, unknown>)[key] === (b as Record<string, unknown>)[key]);
}
