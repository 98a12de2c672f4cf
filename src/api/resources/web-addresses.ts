// Where a resource lives in the web application, as the `url` attributes and activity resources say
// (the real service: `https://www.pivotaltracker.com/story/show/<id>`).

export function storyUrl(siteUrl: string, storyId: number): string {
  return `${siteUrl}/story/show/${storyId}`;
}

export function epicUrl(siteUrl: string, epicId: number): string {
  return `${siteUrl}/epic/show/${epicId}`;
}
