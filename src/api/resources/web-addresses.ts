// Where a resource lives in the web application, as the `url` attributes and activity resources say
// (the real service: `https://www.pivotaltracker.com/story/show/<id>`).

export function storyUrl(siteUrl: string, storyId: number): string {
  return `${siteUrl}/story/show/${storyId}`;
}

export function epicUrl(siteUrl: string, epicId: number): string {
  return `${siteUrl}/epic/show/${epicId}`;
}

/** The board's page of an invitation link (its secret is the last segment; logs never show it). */
export function invitationUrl(siteUrl: string, secret: string): string {
  return `${siteUrl}/invitations/${secret}`;
}

/** Where a file attachment's bytes are served (spec: `{site_url}/file_attachments/{id}/download`). */
export function fileDownloadUrl(siteUrl: string, fileAttachmentId: number): string {
  return `${siteUrl}/file_attachments/${fileAttachmentId}/download`;
}

/** The renditions an uploaded image gets (src/reactions/thumbnails.ts), each served at its own address. */
export const FILE_RENDITIONS = ['thumbnail', 'big'] as const;
export type FileRendition = (typeof FILE_RENDITIONS)[number];

export function fileRenditionUrl(siteUrl: string, fileAttachmentId: number, rendition: FileRendition): string {
  return `${siteUrl}/file_attachments/${fileAttachmentId}/${rendition}`;
}
