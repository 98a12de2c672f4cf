// Where a resource lives in the web application, as the `url` attributes and activity resources say
// (the real service: `https://www.pivotaltracker.com/story/show/<id>`).

export function storyUrl(siteUrl: string, storyId: number): string {
  return `${siteUrl}/story/show/${storyId}`;
}

export function epicUrl(siteUrl: string, epicId: number): string {
  return `${siteUrl}/epic/show/${epicId}`;
}

/** Where a file attachment's bytes are served (spec: `{site_url}/file_attachments/{id}/download`). */
export function fileDownloadUrl(siteUrl: string, fileAttachmentId: number): string {
  return `${siteUrl}/file_attachments/${fileAttachmentId}/download`;
}
