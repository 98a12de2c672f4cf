// A text input inside its label (which names it for assistive technology) that reports each new value:
// the one way the board's forms hold a typed value in state.
import type { InputHTMLAttributes } from 'preact';

export interface LabelledInputProps {
  label: string;
  value: string;
  onValue(value: string): void;
  type?: 'text' | 'email' | 'password';
  name?: string;
  autoComplete?: string;
  required?: boolean;
  maxLength?: number;
  spellcheck?: boolean;
}

export function LabelledInput(props: LabelledInputProps) {
  const { label, value, onValue, ...rest } = props;
  // Preact types an input's attributes per `type`; these hold only attributes every text type takes.
  const input = rest as InputHTMLAttributes<HTMLInputElement>;
  return (
    <label>
      {label}
      <input {...input} value={value} onInput={(event) => onValue((event.target as HTMLInputElement).value)} />
    </label>
  );
}
