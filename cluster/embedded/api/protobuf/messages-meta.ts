import type { MessageTable } from './message-notation.ts';

/**
 * apimachinery's messages (meta/v1, resource.Quantity, intstr.IntOrString) and the runtime.Unknown
 * envelope every protobuf body travels in. Time, Quantity, IntOrString, FieldsV1 and ExtraValue have
 * JSON forms of their own (see to-json.ts).
 */
export const META_MESSAGES: MessageTable = {
  ObjectMeta: 'name=1 generateName=2 namespace=3 selfLink=4 uid=5 resourceVersion=6 generation=7:int64 creationTimestamp=8:Time deletionTimestamp=9:Time deletionGracePeriodSeconds=10:int64! labels=11:map<string,string> annotations=12:map<string,string> ownerReferences=13:OwnerReference[] finalizers=14[] managedFields=17:ManagedFieldsEntry[]',
  Time: 'seconds=1:int64 nanos=2:int32',
  MicroTime: 'seconds=1:int64 nanos=2:int32',
  OwnerReference: 'apiVersion=5! kind=1! name=3! uid=4! controller=6:bool! blockOwnerDeletion=7:bool!',
  ManagedFieldsEntry: 'manager=1 operation=2 apiVersion=3 time=4:Time fieldsType=6 fieldsV1=7:FieldsV1 subresource=8',
  Condition: 'type=1! status=2! observedGeneration=3:int64 lastTransitionTime=4:Time reason=5! message=6!',
  LabelSelector: 'matchLabels=1:map<string,string> matchExpressions=2:LabelSelectorRequirement[]',
  FieldsV1: 'Raw=1:bytes!',
  LabelSelectorRequirement: 'key=1! operator=2! values=3[]',
  FieldSelectorRequirement: 'key=1! operator=2! values=3[]',
  Quantity: 'string=1',
  IntOrString: 'type=1:int64 intVal=2:int32 strVal=3',
  TypeMeta: 'apiVersion=1 kind=2',
  Unknown: 'typeMeta=1:TypeMeta raw=2:bytes contentEncoding=3 contentType=4',
};
