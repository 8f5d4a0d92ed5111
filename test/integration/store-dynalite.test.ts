import { startEmbeddedDynamo } from '../../local/embedded-dynamodb';
import { describeStoreContract } from './store-contract';

describeStoreContract('dynalite (the embedded stand-in)', (tableName) => startEmbeddedDynamo({ tableName }));
