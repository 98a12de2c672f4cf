// Point scales: a comma-delimited list of decimal numbers. A string equal to a built-in scale selects it;
// any other valid list is a custom scale.

export const BUILT_IN_POINT_SCALES = ['0,1,2,3', '0,1,2,4,8', '0,1,2,3,5,8'] as const;

export const DEFAULT_POINT_SCALE = '0,1,2,3';

export const POINT_SCALE_MAX_LENGTH = 255;

const DECIMAL = /^\d+(\.\d+)?$/;

export type PointScaleResult = { ok: true; scale: string; isCustom: boolean } | { ok: false; problem: string };

/** Validates and normalises (spaces around commas dropped) a requested point scale. */
export function parsePointScale(value: unknown): PointScaleResult {
  if (typeof value !== 'string') return { ok: false, problem: "'point_scale' must be a string" };
  const items = value.split(',').map((item) => item.trim());
  if (items.some((item) => !DECIMAL.test(item))) {
    return { ok: false, problem: 'point_scale must be a comma-delimited list of decimal numbers, such as 0,1,2,3.' };
  }
  const numbers = items.map(Number);
  if (new Set(numbers).size !== numbers.length) {
    return { ok: false, problem: 'point_scale must not contain the same value twice.' };
  }
  const scale = items.join(',');
  if (scale.length > POINT_SCALE_MAX_LENGTH) {
    return { ok: false, problem: `point_scale must be ${POINT_SCALE_MAX_LENGTH} characters or less.` };
  }
  return { ok: true, scale, isCustom: !(BUILT_IN_POINT_SCALES as readonly string[]).includes(scale) };
}

/** The estimates a scale allows. */
export function pointScaleValues(scale: string): number[] {
  return scale.split(',').map(Number);
}
