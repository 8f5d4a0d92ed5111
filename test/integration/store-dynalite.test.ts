import { startEmbeddedDynamo } from '../../local/embedded-dynamodb';
import { describeStoreContract } from './store-contract';
import { describeShowNightStoreContract } from './store-contract-show-night';

describeStoreContract('dynalite (the embedded stand-in)', (tableName) => startEmbeddedDynamo({ tableName }));
describeShowNightStoreContract('dynalite (the embedded stand-in)', (tableName) => startEmbeddedDynamo({ tableName }));
