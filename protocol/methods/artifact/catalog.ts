import { z } from 'zod';
import { text } from '../../schema.js';

/**
 * The artifact catalog, version 1: the only components an artifact may use. Components are flat (A2UI's model): each
 * has an `id` unique in its artifact and a `type`; containers name their children by id, and the first component is
 * the root. No styles: a `tone` names a role the host themes with the brand's tokens. A prop marked bindable takes
 * its value or `{path}`, a JSON pointer into the artifact's `data` that must resolve.
 */

export const CATALOG_VERSION = '1';
export const TONES = ['neutral', 'brand', 'positive', 'warning', 'critical'] as const;
/** The brand token each tone is drawn with (the host's own style variables come first). */
export const TONE_TOKENS: Readonly<Record<(typeof TONES)[number], string>> = {
  neutral: 'color.text',
  brand: 'color.brand.primary',
  positive: 'color.positive',
  warning: 'color.warning',
  critical: 'color.critical',
};
export const MAX_COMPONENTS = 200;
export const MAX_TABLE_ROWS = 500;
export const MAX_CHART_POINTS = 2500;
export const INPUT_TYPES = ['TextInput', 'NumberInput', 'Select', 'Checkbox', 'DateInput'] as const;

const componentId = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9_-]{0,39}$/, 'must be a letter then letters, digits, _ or -, at most 40')
  .describe('Unique in the artifact.');
const label = (description: string) => text({ min: 1, max: 200, description });
/** A JSON pointer into the artifact's data (`/rows`, `/totals/amount`). */
export const Binding = z.strictObject({
  path: z
    .string()
    .max(200, 'must be at most 200 characters')
    .regex(/^(\/[^/]*)*$/, 'must be a JSON pointer such as /rows/0/name')
    .describe('A JSON pointer into data.'),
});
const bindable = <T extends z.ZodType>(schema: T) => z.union([schema, Binding]);
const tone = z.enum(TONES).describe('A role the host themes with brand tokens.').optional();
const children = z.array(componentId).max(MAX_COMPONENTS, `must list at most ${MAX_COMPONENTS}`).describe('Child component ids, in order.');
const scalar = z.union([z.string().max(2000, 'must be at most 2000 characters'), z.number(), z.boolean(), z.null()]);
const inputName = z
  .string()
  .regex(/^[a-z][A-Za-z0-9_]{0,39}$/, 'must start with a lowercase letter; letters, digits, _; at most 40')
  .describe('The key its value has in an action’s values.');
const dateField = z.iso.date({ message: 'must be a date YYYY-MM-DD' });
const input = { id: componentId, name: inputName, label: label('What the person is asked.'), required: z.boolean().optional() };

/** Each component type of catalog 1 and its props. */
export const COMPONENTS = {
  Stack: z.strictObject({
    id: componentId,
    type: z.literal('Stack'),
    direction: z.enum(['vertical', 'horizontal']).optional(),
    gap: z.enum(['none', 'small', 'medium', 'large']).optional(),
    children,
  }),
  Card: z.strictObject({ id: componentId, type: z.literal('Card'), title: bindable(label('The card title.')).optional(), tone, children }),
  Tabs: z.strictObject({
    id: componentId,
    type: z.literal('Tabs'),
    labels: z.array(label('A tab label.')).min(1).max(12, 'must list at most 12'),
    children: children.describe('One component per tab, in the order of labels.'),
  }),
  Heading: z.strictObject({
    id: componentId,
    type: z.literal('Heading'),
    text: bindable(label('The heading.')),
    level: z.number().int().min(1).max(3).optional(),
  }),
  Text: z.strictObject({
    id: componentId,
    type: z.literal('Text'),
    markdown: bindable(text({ max: 8000, description: 'Markdown: emphasis, code, lists, https links; HTML shows as text.' })),
    tone,
  }),
  Image: z.strictObject({
    id: componentId,
    type: z.literal('Image'),
    imageId: z
      .string()
      .max(64)
      .regex(/^(img|fil)_[A-Za-z0-9]+$/, 'must be a brand image (img_…) or a file (fil_…)'),
    alt: text({ max: 300, description: 'What the image shows.' }),
  }),
  KeyValue: z.strictObject({
    id: componentId,
    type: z.literal('KeyValue'),
    items: bindable(z.array(z.strictObject({ label: label('The key.'), value: scalar })).max(100, 'must list at most 100')),
  }),
  Table: z.strictObject({
    id: componentId,
    type: z.literal('Table'),
    columns: z
      .array(z.strictObject({ key: z.string().min(1).max(40), label: label('The header.'), align: z.enum(['start', 'end']).optional() }))
      .min(1)
      .max(20, 'must list at most 20'),
    rows: bindable(z.array(z.record(z.string(), scalar))).describe(`Up to ${MAX_TABLE_ROWS} rows, each a record by column key.`),
  }),
  Chart: z.strictObject({
    id: componentId,
    type: z.literal('Chart'),
    kind: z.enum(['bar', 'line']),
    series: bindable(
      z
        .array(
          z.strictObject({ name: label('The series name.'), points: z.array(z.strictObject({ x: z.union([z.string().max(80), z.number()]), y: z.number() })) }),
        )
        .max(10, 'must list at most 10'),
    ).describe(`Up to ${MAX_CHART_POINTS} points in all.`),
  }),
  Progress: z.strictObject({
    id: componentId,
    type: z.literal('Progress'),
    value: bindable(z.number()),
    max: z.number().positive().optional(),
    label: label('What is progressing.').optional(),
    tone,
  }),
  Callout: z.strictObject({
    id: componentId,
    type: z.literal('Callout'),
    tone: z.enum(TONES),
    title: label('The callout title.').optional(),
    markdown: bindable(text({ max: 4000, description: 'Markdown, as Text.' })),
  }),
  RecordRef: z.strictObject({
    id: componentId,
    type: z.literal('RecordRef'),
    recordId: z
      .string()
      .max(64)
      .regex(/^[a-z]+_[A-Za-z0-9]+$/, 'must be a record id such as task_…'),
    label: label('The chip text.').optional(),
  }),
  ApprovalRef: z.strictObject({
    id: componentId,
    type: z.literal('ApprovalRef'),
    approvalId: z
      .string()
      .max(64)
      .regex(/^apr_[A-Za-z0-9]+$/, 'must be an id of the form apr_…'),
  }),
  TextInput: z.strictObject({
    ...input,
    type: z.literal('TextInput'),
    multiline: z.boolean().optional(),
    maxLength: z.number().int().min(1).max(4000).optional(),
  }),
  NumberInput: z.strictObject({
    ...input,
    type: z.literal('NumberInput'),
    min: z.number().optional(),
    max: z.number().optional(),
    integer: z.boolean().optional(),
  }),
  Select: z.strictObject({
    ...input,
    type: z.literal('Select'),
    options: z
      .array(z.strictObject({ value: z.string().min(1).max(100), label: label('What the person sees.') }))
      .min(1)
      .max(50, 'must list at most 50'),
  }),
  Checkbox: z.strictObject({ ...input, type: z.literal('Checkbox') }),
  DateInput: z.strictObject({ ...input, type: z.literal('DateInput'), min: dateField.optional(), max: dateField.optional() }),
  Button: z.strictObject({ id: componentId, type: z.literal('Button'), actionId: z.string().min(1).max(40), label: label('The button text.'), tone }),
} as const;

export type ComponentType = keyof typeof COMPONENTS;
export const COMPONENT_TYPES = Object.keys(COMPONENTS) as ComponentType[];
export const CONTAINERS: readonly ComponentType[] = ['Stack', 'Card', 'Tabs'];

const SUMMARIES: Record<ComponentType, string> = {
  Stack: 'Lays out its children vertically or horizontally.',
  Card: 'A titled group of children, optionally toned.',
  Tabs: 'One child per tab label.',
  Heading: 'A heading, level 1 to 3.',
  Text: 'Markdown (emphasis, code, lists, https links); HTML is shown as text.',
  Image: 'A brand image (img_…) or a file (fil_…) with alt text.',
  KeyValue: 'Label and value pairs.',
  Table: `Columns and up to ${MAX_TABLE_ROWS} rows.`,
  Chart: `A bar or line chart, up to ${MAX_CHART_POINTS} points in all.`,
  Progress: 'A value out of max (default 100).',
  Callout: 'A toned note.',
  RecordRef: 'A chip naming a record (task_…, fil_…, msg_…, …) the author may read.',
  ApprovalRef: 'An approval (apr_…): decided in the approval inbox, never by acting on the artifact.',
  TextInput: 'A text answer.',
  NumberInput: 'A number, with min, max and integer.',
  Select: 'One of its options.',
  Checkbox: 'Yes or no.',
  DateInput: 'A date YYYY-MM-DD, with min and max.',
  Button: 'Runs one of the artifact’s actions (artifact.act) with its inputs.',
};

/** What artifact.catalog answers: each type, its summary, its props as JSON Schema, and the tones. */
export function catalogDocument() {
  return {
    version: CATALOG_VERSION,
    components: COMPONENT_TYPES.map((type) => ({
      type,
      summary: SUMMARIES[type],
      container: CONTAINERS.includes(type),
      input: (INPUT_TYPES as readonly string[]).includes(type),
      props: z.toJSONSchema(COMPONENTS[type], { io: 'input', unrepresentable: 'any' }),
    })),
    tones: TONES.map((t) => ({ tone: t, token: TONE_TOKENS[t] })),
    limits: { components: MAX_COMPONENTS, dataBytes: 256 * 1024, tableRows: MAX_TABLE_ROWS, chartPoints: MAX_CHART_POINTS },
  };
}
