import { iso } from '../../../platform/time.ts';
import type { TemplateContent, TemplateSummaryRow } from './templates.repo.ts';
import type { Template, TemplateSummary } from './templates.schemas.ts';

const hours = (v: string | number | null): number | null => (v === null ? null : Number(v));

export function toTemplateSummary(row: TemplateSummaryRow): TemplateSummary {
  return {
    template_id: row.template_id,
    template_name: row.template_name,
    description: row.description,
    category: row.category,
    use_count: row.use_count,
    phase_count: Number(row.phase_count),
    task_count: Number(row.task_count),
    created_by: row.created_by,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

export function toTemplate(row: TemplateSummaryRow, content: TemplateContent): Template {
  const checklistOf = new Map<string, Template['phases'][number]['tasks'][number]['checklist']>();
  for (const i of content.items) {
    const list = checklistOf.get(i.template_task_id) ?? [];
    list.push({ template_item_id: i.template_item_id, item_name: i.item_name, completed: i.completed, position: i.position });
    checklistOf.set(i.template_task_id, list);
  }
  const tasksOf = new Map<string, Template['phases'][number]['tasks']>();
  for (const k of content.tasks) {
    const list = tasksOf.get(k.template_phase_id) ?? [];
    list.push({
      template_task_id: k.template_task_id,
      task_name: k.task_name,
      description: k.description,
      estimated_hours: hours(k.estimated_hours),
      due_offset_days: k.due_offset_days,
      assigned_to: k.assigned_to,
      assigned_team_id: k.assigned_team_id,
      task_status_id: k.task_status_id,
      position: k.position,
      checklist: checklistOf.get(k.template_task_id) ?? [],
    });
    tasksOf.set(k.template_phase_id, list);
  }
  return {
    ...toTemplateSummary(row),
    phases: content.phases.map((p) => ({
      template_phase_id: p.template_phase_id,
      phase_name: p.phase_name,
      description: p.description,
      start_offset_days: p.start_offset_days,
      duration_days: p.duration_days,
      position: p.position,
      tasks: tasksOf.get(p.template_phase_id) ?? [],
    })),
    status_mappings: content.mappings.map((m) => ({ task_status_id: m.task_status_id, status_name: m.status_name, is_closed: m.is_closed, position: m.position })),
  };
}
