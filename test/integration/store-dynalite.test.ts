import { startEmbeddedDynamo } from '../../local/embedded-dynamodb';
import { dynamoStoresOn } from '../support/store-under-test';
import { describeStoreContract } from './store-contract';
import { describeJobStoreContract } from './store-contract-jobs';
import { describeAudienceStoreContract } from './store-contract-audience';
import { describeShowNightStoreContract } from './store-contract-show-night';
import { describeOrderStoreContract } from './store-contract-orders';
import { describeSlotStoreContract } from './store-contract-slots';

const dynalite = dynamoStoresOn((tables) => startEmbeddedDynamo(tables));
describeStoreContract('dynalite (the embedded stand-in)', dynalite);
describeShowNightStoreContract('dynalite (the embedded stand-in)', dynalite);
describeJobStoreContract('dynalite (the embedded stand-in)', dynalite);
describeAudienceStoreContract('dynalite (the embedded stand-in)', dynalite);
describeOrderStoreContract('dynalite (the embedded stand-in)', dynalite);
describeSlotStoreContract('dynalite (the embedded stand-in)', dynalite);
