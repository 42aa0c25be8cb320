// Shared helpers for the infra tests: synthesize a SluiceStack once per file without running
// esbuild (the bundle-size test bundles for real), and resolve template cross-references.
import { App, Aspects, type Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';

export interface Synthesized {
  readonly stack: Stack;
  readonly template: Template;
  /** Unsuppressed cdk-nag AwsSolutions errors, as `rule: path` strings. */
  readonly nagErrors: string[];
}

/** Builds one stack in a fresh app, applies cdk-nag, and synthesizes it. */
export function synthesize(build: (app: App) => Stack): Synthesized {
  // An empty bundling-stacks list makes NodejsFunction skip esbuild: the template is identical
  // apart from the asset hash, and synth stays fast.
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = build(app);
  Aspects.of(app).add(new AwsSolutionsChecks({ verbose: true }));
  const template = Template.fromStack(stack);
  const nagErrors = Annotations.fromStack(stack)
    .findError('*', Match.stringLikeRegexp('AwsSolutions-.*'))
    .map((m) => `${String(m.entry.data).split(':')[0]}: ${m.id}`);
  return { stack, template, nagErrors };
}

type Resources = Record<string, { Type: string; Properties: Record<string, any> }>;

/** Logical id of each Sluice function, keyed by its concern name (from FunctionName `<prefix>-<name>`). */
export function functionIds(template: Template, prefix = 'sluice'): Record<string, string> {
  const fns = template.findResources('AWS::Lambda::Function') as Resources;
  const out: Record<string, string> = {};
  for (const [id, r] of Object.entries(fns)) {
    const name = r.Properties.FunctionName;
    if (typeof name === 'string' && name.startsWith(`${prefix}-`)) out[name.slice(prefix.length + 1)] = id;
  }
  return out;
}

/** Every IAM action attached (inline policies) to the role with this logical id. */
export function roleActions(template: Template, roleId: string): string[] {
  const policies = template.findResources('AWS::IAM::Policy') as Resources;
  const actions: string[] = [];
  for (const p of Object.values(policies)) {
    if (!p.Properties.Roles.some((r: any) => r.Ref === roleId)) continue;
    for (const s of p.Properties.PolicyDocument.Statement) actions.push(...[s.Action].flat());
  }
  return actions;
}

export function roleOfFunction(template: Template, functionId: string): string {
  const fn = (template.findResources('AWS::Lambda::Function') as Resources)[functionId];
  return fn.Properties.Role['Fn::GetAtt'][0];
}
