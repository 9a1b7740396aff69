import { checkStoredTemplate, renderStoredTemplate, storedTemplate } from './identity-template.ts';
import { renderTemplate, validateTemplate, type TemplateSubject } from './templates.ts';

/**
 * How scope templates are kept and rendered. The spec says only "JSON template text; escaped JSON or
 * base64-encoded JSON. May contain template expressions over identity data": the spec dialect takes
 * any `{{identity.entity.…}}` expression wherever it stands and keeps the text as written. The
 * hashicorp dialect parses as Vault does (identity-template.ts): it refuses what identitytpl refuses
 * and keeps a base64 template decoded, as a read of it shows in Vault.
 */
export interface ScopeTemplates {
  /** The text a write keeps, once checked (a FieldError refuses the write); `asWritten` keeps the text given. */
  stored(template: string, asWritten?: boolean): string;
  render(template: string, subject: TemplateSubject): Record<string, unknown>;
}

const specTemplates: ScopeTemplates = {
  stored(template) {
    validateTemplate(template);
    return template;
  },
  render: renderTemplate,
};

const vaultTemplates: ScopeTemplates = {
  stored(template, asWritten = false) {
    const text = storedTemplate(template);
    checkStoredTemplate(text);
    return asWritten ? template : text;
  },
  render: renderStoredTemplate,
};

export function scopeTemplates(vaultChoices: boolean): ScopeTemplates {
  return vaultChoices ? vaultTemplates : specTemplates;
}
