import { renderEmbeddedTemplate } from './nomad-job/template-actions.ts';
import type { CanonicalJob, CanonicalTask } from './nomad-job/canonical-job.ts';
import type { TemplateToRender } from './task-process.ts';

/**
 * A job that passed Nomad's validation (nomad-job/admit.ts makes it): Nomad's API field names,
 * defaults applied, durations in nanoseconds. The reference runs the job's first task group, with
 * one allocation, as its fixtures need.
 */
export type RunnableJob = CanonicalJob;
export type RunnableTask = CanonicalTask;

/**
 * The task's templates as the client renders them before the task starts (the template hook):
 * embedded data with its delimiters, the task's environment for `env`. Registration already refused
 * any template the reference cannot render, so a failure here is a bug.
 */
export function renderTemplates(task: RunnableTask, env: Record<string, string>): TemplateToRender[] {
  return (task.Templates ?? []).map((t) => {
    const rendered = renderEmbeddedTemplate(t.EmbeddedTmpl, t.LeftDelim, t.RightDelim, env);
    if (!rendered.ok) throw new Error(`template ${t.DestPath}: ${rendered.message}`);
    return { destPath: t.DestPath, text: rendered.text, perms: t.Perms };
  });
}

/**
 * Why the reference could not render one of the job's templates, or undefined. Nomad renders
 * templates on the client, with every consul-template function; the reference renders only `env` and
 * string literals, so it refuses at registration a job whose templates need more, rather than run it
 * with a template rendered wrong.
 */
export function unrenderableTemplate(job: RunnableJob): string | undefined {
  for (const group of job.TaskGroups) {
    for (const task of group.Tasks) {
      for (const t of task.Templates ?? []) {
        if (t.EmbeddedTmpl === '') continue;
        const rendered = renderEmbeddedTemplate(t.EmbeddedTmpl, t.LeftDelim, t.RightDelim, {});
        if (!rendered.ok) return `Task group ${group.Name}, task ${task.Name}, template ${t.DestPath}: ${rendered.message}`;
      }
    }
  }
  return undefined;
}
