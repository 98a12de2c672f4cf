import { expect } from 'chai';
import { activityWindowStart, isEnterprisePlan, monthsBefore } from '../../../src/domain/activity/activity-window.js';

const NOW = Date.UTC(2025, 7, 31, 10, 30, 15, 250); // 31 August 2025
const DEFAULTS = { activityWindowMonths: 6, enterpriseActivityWindowMonths: 25 };

describe('activity history window', () => {
  it('shows six months to non-enterprise accounts', () => {
    expect(activityWindowStart(NOW, 'free', DEFAULTS)).to.equal(Date.UTC(2025, 1, 28, 10, 30, 15, 250));
    expect(activityWindowStart(NOW, null, DEFAULTS)).to.equal(Date.UTC(2025, 1, 28, 10, 30, 15, 250));
  });

  it('shows 25 months to enterprise accounts', () => {
    expect(isEnterprisePlan('Enterprise')).to.equal(true);
    expect(activityWindowStart(NOW, 'enterprise', DEFAULTS)).to.equal(Date.UTC(2023, 6, 31, 10, 30, 15, 250));
  });

  it('never shows an enterprise account less than a standard one', () => {
    expect(activityWindowStart(NOW, 'enterprise', { activityWindowMonths: 36, enterpriseActivityWindowMonths: 25 }))
      .to.equal(Date.UTC(2022, 7, 31, 10, 30, 15, 250));
    expect(activityWindowStart(NOW, 'enterprise', { activityWindowMonths: null, enterpriseActivityWindowMonths: 25 }))
      .to.equal(null);
  });

  it('has no limit when the operator configures none', () => {
    const unlimited = { activityWindowMonths: null, enterpriseActivityWindowMonths: null };
    expect(activityWindowStart(NOW, 'free', unlimited)).to.equal(null);
    expect(activityWindowStart(NOW, 'enterprise', unlimited)).to.equal(null);
  });

  it('counts calendar months, clamping to the end of shorter months, across years', () => {
    expect(monthsBefore(Date.UTC(2024, 4, 31), 3)).to.equal(Date.UTC(2024, 1, 29)); // leap February
    expect(monthsBefore(Date.UTC(2025, 0, 15), 13)).to.equal(Date.UTC(2023, 11, 15));
    expect(monthsBefore(Date.UTC(2025, 0, 15), 0)).to.equal(Date.UTC(2025, 0, 15));
  });
});
