// How epics are rendered (facts §12 epic key set): the epics bucket of a search result uses it.
// `label` is the epic's one label (nested by default, `label_id` on request: each replaces the other).
import type { ReadOnlyCollection } from '../../ports/read-store.js';
import type { ResourceType } from '../resource-type.js';
import { epicUrl } from './web-addresses.js';

export interface EpicTypeDeps {
  labels: ReadOnlyCollection;
  siteUrl: string;
}

export function epicResourceType(deps: EpicTypeDeps): ResourceType {
  return {
    name: 'epic',
    kind: 'epic',
    attributes: ['id', 'project_id', 'name', 'description', 'label_id', 'follower_ids', 'created_at', 'updated_at'],
    datetimes: ['created_at', 'updated_at'],
    defaults: ['id', 'kind', 'created_at', 'updated_at', 'project_id', 'name', 'description', 'url', 'label'],
    associations: {
      label: {
        type: 'label',
        ids: 'label_id',
        alternative: true,
        async load(docs) {
          const found = await deps.labels.find({ id: { $in: docs.map((doc) => Number(doc['label_id'])) } });
          const byId = new Map(found.map((label) => [label.id, label]));
          return docs.map((doc) => byId.get(Number(doc['label_id'])) ?? null);
        },
      },
    },
    computed: { url: async (docs) => docs.map((doc) => epicUrl(deps.siteUrl, doc.id)) },
  };
}
