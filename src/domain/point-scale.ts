// A project's point scale: the estimates its stories may carry, written as a comma-delimited list of
// decimal numbers. Three scales are built in; any other well-formed string is a custom scale.

export const BUILT_IN_POINT_SCALES: readonly string[] = ['0,1,2,3', '0,1,2,4,8', '0,1,2,3,5,8'];

export const DEFAULT_POINT_SCALE = '0,1,2,3';

const DECIMAL = /^\d+(\.\d+)?$/;

/** The values of a scale, or null when the string is not a comma list of non-negative decimals. */
export function pointScaleValues(scale: string): number[] | null {
  const parts = scale.split(',').map((part) => part.trim());
  if (parts.length === 0 || parts.some((part) => !DECIMAL.test(part))) return null;
  return parts.map(Number);
}

/** Why a string cannot be a point scale, or null when it can. */
export function pointScaleProblem(scale: string): string | null {
  const values = pointScaleValues(scale);
  if (!values) return 'Point scale must be a comma-separated list of non-negative decimal numbers.';
  if (new Set(values).size !== values.length) return 'Point scale values must be distinct.';
  return null;
}

export function isBuiltInPointScale(scale: string): boolean {
  return BUILT_IN_POINT_SCALES.includes(scale);
}

/** Whether an estimate is one of the scale's values, compared numerically ("0.50" matches 0.5). */
export function isOnPointScale(scale: string, estimate: number): boolean {
  return (pointScaleValues(scale) ?? []).includes(estimate);
}
