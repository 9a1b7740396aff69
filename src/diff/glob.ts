/** Whether `text` matches `glob`, where `*` stands for any run of characters and everything else for itself. */
export function globMatches(glob: string, text: string): boolean {
  const re = new RegExp(`^${glob.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[\\s\\S]*')}$`);
  return re.test(text);
}
