/**
 * Custom resource (CDK provider framework, onEvent): moves staff accounts and the account policy
 * from the main table, where stacks from before the staff table kept them, into the staff table
 * (functions/adapters/staff-table-move.ts).
 *
 * - Step `copy`, before the admin function changes: the staff table gets what it lacks; the old
 *   items stay, so a rolled-back deploy finds them.
 * - Step `retire`, the stack's last resource: copies what is still missing, then deletes the old
 *   items, which every other function's role could reach.
 *
 * TOTP secrets those stacks kept in clear are sealed with the admin secret's key on the way. On a
 * fresh stack both steps find nothing. Only key names and counts are logged.
 */
import { dynamoDocumentClient } from '../../functions/adapters/aws-clients';
import { loadAdminSecrets } from '../../functions/adapters/secrets';
import { copyStaffItems, retireStaffItems } from '../../functions/adapters/staff-table-move';

export type StaffMoveStep = 'copy' | 'retire';

interface CustomResourceEvent {
  RequestType: 'Create' | 'Update' | 'Delete';
  PhysicalResourceId?: string;
  /** `AdminSecretArn`: its `totpEncryptionKey` seals TOTP secrets that older stacks kept in clear. */
  ResourceProperties: { TableName: string; StaffTableName: string; AdminSecretArn: string; Step: StaffMoveStep };
}

export async function handler(event: CustomResourceEvent): Promise<{ PhysicalResourceId: string }> {
  const { TableName, StaffTableName, AdminSecretArn, Step } = event.ResourceProperties;
  const physicalId = `${StaffTableName}#${Step}`;
  // Deleting the resource leaves both tables alone (they are retained with the stack's data).
  if (event.RequestType === 'Delete') return { PhysicalResourceId: event.PhysicalResourceId ?? physicalId };
  const client = dynamoDocumentClient();
  const { totpEncryptionKey } = await loadAdminSecrets({ arn: AdminSecretArn });
  const move = { from: TableName, to: StaffTableName, totpEncryptionKey };
  const result = Step === 'retire' ? await retireStaffItems(client, move) : await copyStaffItems(client, move);
  console.log(JSON.stringify({ message: 'staff items moved', step: Step, copied: result.copied, deleted: result.deleted }));
  return { PhysicalResourceId: physicalId };
}
